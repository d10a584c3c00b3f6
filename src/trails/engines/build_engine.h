// How the engines registry builds each engine from its spec: one build_engine overload per entry
// of the engine list (config/engines/engine_list.h), declared here and defined in that engine's
// room, so that registry.cpp names no concrete engine (docs/architecture.md, "How to add an
// engine"). Molecular engines prepare their system first (OpenMM: once per campaign into
// run_dir/prepared/<digest>/); bad inputs throw ConfigError/InputError naming the key or file.
#pragma once

#include <filesystem>
#include <memory>

#include "trails/config/engine_spec.h"
#include "trails/engines/engine.h"

namespace trails::engines {

#define TRAILS_BUILD_ENGINE_DECLARATION(name, Keys, Spec)        \
  std::unique_ptr<Engine> build_engine(const config::Spec& spec, \
                                       const std::filesystem::path& run_dir);
TRAILS_ENGINES(TRAILS_BUILD_ENGINE_DECLARATION)
#undef TRAILS_BUILD_ENGINE_DECLARATION

}  // namespace trails::engines
