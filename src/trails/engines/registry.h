// The one table of MD engines: each spec type of config/engine_spec.h maps to the Engine built
// from it. Adding an engine means a spec type in config/ and one entry here; nothing else in
// Trails names a concrete engine (docs/architecture.md, "Engines").
#pragma once

#include <filesystem>
#include <memory>

#include "trails/config/engine_spec.h"
#include "trails/engines/engine.h"

namespace trails::engines {

// The engine of a campaign. Molecular engines prepare their system first (OpenMM: once per
// campaign into run_dir/prepared/<digest>/, reused on resume); the built-in engine ignores run_dir.
// Bad inputs throw ConfigError/InputError naming the key or file.
std::unique_ptr<Engine> make_engine(const config::EngineSpec& spec,
                                    const std::filesystem::path& run_dir);

}  // namespace trails::engines
