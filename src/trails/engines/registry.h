// The one table of MD engines: maps `engine.md_engine` to a constructed Engine. Engines that this
// build does not have are rejected by the config module before this is reached.
#pragma once

#include <memory>

#include "trails/config/campaign_config.h"
#include "trails/engines/engine.h"

namespace trails::engines {

std::unique_ptr<Engine> make_engine(const config::EngineConfig& config);

}  // namespace trails::engines
