// The MD engines' table: each spec of config/engine_spec.h maps to the Engine its room's
// build_engine builds (build_engine.h), both generated from the engine list
// (config/engines/engine_list.h); nothing else in Trails names a concrete engine
// (docs/architecture.md, "How to add an engine").
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "trails/config/engine_spec.h"
#include "trails/engines/engine.h"

namespace trails::engines {

// The engine of a campaign. Molecular engines prepare their system first (OpenMM: once per
// campaign into run_dir/prepared/<digest>/, reused on resume); the built-in engine ignores run_dir.
// Bad inputs throw ConfigError/InputError naming the key or file.
std::unique_ptr<Engine> make_engine(const config::EngineSpec& spec,
                                    const std::filesystem::path& run_dir);

// The engine setup a driver hands to its worker processes (opaque to exec/, carried by the wire
// Setup message): the spec and the run directory as CBOR. make_engine_from_setup builds the
// same engine in the worker (a molecular engine reuses the system the driver prepared).
// Throws CorruptionError for bytes that are not such a setup.
std::vector<std::uint8_t> worker_engine_setup(const config::EngineSpec& spec,
                                              const std::filesystem::path& run_dir);
std::unique_ptr<Engine> make_engine_from_setup(std::span<const std::uint8_t> setup);

}  // namespace trails::engines
