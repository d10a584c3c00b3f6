#include "trails/config/config_kind.h"

#include <yaml-cpp/yaml.h>

namespace trails::config {

bool is_campaign_config(const std::filesystem::path& file) {
  try {
    const YAML::Node root = YAML::LoadFile(file.string());
    return root.IsMap() && !root["pathgennie"];
  } catch (const YAML::Exception&) {
    return false;
  }
}

}  // namespace trails::config
