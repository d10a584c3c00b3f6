// The command engine's own keys (engine.md_engine: command; docs/engines.md, "The command
// engine"), as CampaignConfig holds them; command.cpp is its module.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace trails::config {

struct CommandKeys {
  std::vector<std::string> argv;    // engine.command
  std::optional<double> timeout_s;  // engine.command_timeout
};

}  // namespace trails::config
