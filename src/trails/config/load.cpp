// load_campaign_config(): read the file, parse its YAML document, run the two validation passes,
// and either return the typed config or throw every problem at once. Reads only.
#include "trails/config/load.h"

#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

#include "trails/config/cross_checks.h"
#include "trails/config/problems.h"
#include "trails/config/reader.h"
#include "trails/config/yaml_document.h"

namespace trails::config {
namespace {

namespace fs = std::filesystem;

// The file's text, or a problem saying why it cannot be read.
std::optional<std::string> read_text(const fs::path& file, const fs::path& absolute,
                                     detail::Problems& problems) {
  std::error_code ec;
  const fs::file_status st = fs::status(file, ec);
  if (!fs::exists(st)) {
    problems.add_file_problem("configuration file not found: " + absolute.string());
    return std::nullopt;
  }
  if (fs::is_directory(st)) {
    problems.add_file_problem("is a directory, not a configuration file: " + absolute.string());
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    problems.add_file_problem("cannot read the configuration file " + absolute.string() +
                              " (check its permissions)");
    return std::nullopt;
  }
  return text.str();
}

}  // namespace

CampaignConfig load_campaign_config(const fs::path& file) {
  detail::Problems problems(file.string());
  std::error_code ec;
  fs::path absolute = fs::absolute(file, ec);
  if (ec) absolute = file;
  absolute = absolute.lexically_normal();

  const std::optional<std::string> text = read_text(file, absolute, problems);
  if (!text) problems.throw_if_any();

  const std::optional<YAML::Node> root = detail::parse_document(*text, problems);
  if (!root) problems.throw_if_any();

  const detail::RawConfig raw = detail::read_document(*root, absolute.parent_path(), problems);
  // Cross-field rules on a document that is not even a mapping would only add noise.
  if (root->IsMap()) detail::check_cross_fields(raw, problems);
  CampaignConfig config = detail::build_config(raw);
  config.config_file = absolute;
  problems.throw_if_any();
  return config;
}

}  // namespace trails::config
