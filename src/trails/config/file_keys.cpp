#include "trails/config/file_keys.h"

#include "trails/config/config_text.h"
#include "trails/config/problems.h"

namespace trails::config {

bool file_sets_key(const std::filesystem::path& file, const std::string& block,
                   const std::string& name) {
  detail::Problems problems(file.string());
  const auto doc = detail::read_config_document(file, file, problems);
  if (!doc || !doc->IsMap()) return false;
  const YAML::Node b = (*doc)[block];
  return b && b.IsMap() && b[name].IsDefined() && !b[name].IsNull();
}

}  // namespace trails::config
