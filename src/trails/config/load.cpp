// load_campaign_config(): read the file, parse its YAML document, run the two validation passes,
// and either return the typed config or throw every problem at once. Reads only.
#include "trails/config/load.h"

#include <optional>

#include "trails/config/config_text.h"
#include "trails/config/cross_checks.h"
#include "trails/config/reader.h"

namespace trails::config {

namespace fs = std::filesystem;

CampaignConfig load_campaign_config(const fs::path& file) {
  detail::Problems problems(file.string());
  const fs::path absolute = detail::absolute_config_path(file);

  const std::optional<YAML::Node> root = detail::read_config_document(file, absolute, problems);
  if (!root) problems.throw_if_any();

  const detail::RawConfig raw = detail::read_document(*root, absolute.parent_path(), problems);
  // Cross-field rules on a document that is not even a mapping would only add noise.
  if (root->IsMap()) detail::check_cross_fields(raw, problems);
  CampaignConfig config = detail::build_config(raw);
  config.config_file = absolute;
  config.notes = detail::format_notes(raw, file.string());
  problems.throw_if_any();
  return config;
}

}  // namespace trails::config
