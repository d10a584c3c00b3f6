// The one table of MD engines: maps `engine.md_engine` to a constructed Engine. Engines that this
// build does not have are rejected by the config module before this is reached.
#pragma once

#include <filesystem>
#include <memory>

#include "trails/config/campaign_config.h"
#include "trails/engines/engine.h"

namespace trails::engines {

// The engine of a campaign. Molecular engines prepare their system first (OpenMM: once per
// campaign into run_dir/prepared/<digest>/, reused on resume); the built-in engine ignores run_dir.
std::unique_ptr<Engine> make_engine(const config::CampaignConfig& config,
                                    const std::filesystem::path& run_dir);

// Engines that need no preparation (builtin). Throws ConfigError for openmm: use the overload above.
std::unique_ptr<Engine> make_engine(const config::EngineConfig& config);

}  // namespace trails::engines
