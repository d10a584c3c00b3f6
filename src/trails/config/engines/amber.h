// The Amber engine's own keys (engine.md_engine: amber; docs/engines.md, "The Amber engine"),
// as CampaignConfig holds them; amber.cpp is its module (rows, checks, spec, JSON).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trails::config {

struct AmberKeys {
  std::string executable = "pmemd";                 // engine.amber_executable
  std::optional<std::filesystem::path> input_file;  // engine.amber_input_file (mdin template)
  std::vector<std::string> extra_args;              // engine.amber_extra_args
  std::string trajectory_format = "auto";           // engine.amber_trajectory_format
};

}  // namespace trails::config
