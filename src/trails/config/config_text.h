// Reading a configuration file's text: existence, permissions, UTF-8, and its one YAML document.
// Shared by every configuration loader (campaign and swarm). Internal to the config module.
#pragma once

#include <filesystem>
#include <optional>

#include <yaml-cpp/yaml.h>

#include "trails/config/problems.h"

namespace trails::config::detail {

// `file` made absolute and normalised (as written when that fails), for messages and paths.
std::filesystem::path absolute_config_path(const std::filesystem::path& file);

// The root node of the file's YAML document, or nullopt with the problem recorded (missing,
// a directory, unreadable, not UTF-8, not YAML). `absolute` names the file in messages.
std::optional<YAML::Node> read_config_document(const std::filesystem::path& file,
                                               const std::filesystem::path& absolute,
                                               Problems& problems);

}  // namespace trails::config::detail
