// Converts one YAML value to JSON according to its KeySpec: type, null-ness, range, choices and
// path resolution. Every problem is reported (with the element's own position and path, e.g.
// "n_bins[1]") and the conversion then fails. Internal to the config module.
#pragma once

#include <filesystem>
#include <string>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "trails/config/problems.h"
#include "trails/config/schema.h"

namespace trails::config::detail {

struct ValueSite {
  std::string path;                  // dotted key path, for messages
  Position at;                       // where the value is (the key's position for empty values)
  std::filesystem::path config_dir;  // relative paths are resolved against this
};

// On success stores the value in `out` (numbers as double, paths absolute) and returns true.
bool convert_value(const YAML::Node& node, const KeySpec& spec, const ValueSite& site,
                   Problems& problems, nlohmann::json& out);

// Absolute, normalised form of a path written in the config file.
std::filesystem::path resolve_path(const std::string& written,
                                   const std::filesystem::path& config_dir);

// Shortest decimal text that reads back as `value` ("0.0001", "300", "1e-12").
std::string format_number(double value);

}  // namespace trails::config::detail
