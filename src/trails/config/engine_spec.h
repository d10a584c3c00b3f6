// The typed descriptions that engines are built from, one spec per engine of the engine list
// (config/engines/engine_list.h; each spec in its engine's header there). config/ builds them
// from a run's YAML (MdSystemConfig::engine_spec()); engines/ reads only these, never the whole
// configuration.
#pragma once

#include <optional>
#include <variant>

#include <nlohmann/json.hpp>

#include "trails/config/engines/engine_list.h"

namespace trails::config {

namespace detail {
template <class Void, class... Specs>
struct VariantOfSpecs {
  using type = std::variant<Specs...>;
};
}  // namespace detail

// One alternative per engine of the engine list, in its order.
#define TRAILS_ENGINE_SPEC_TYPE(name, Keys, Spec) , Spec
using EngineSpec = detail::VariantOfSpecs<void TRAILS_ENGINES(TRAILS_ENGINE_SPEC_TYPE)>::type;
#undef TRAILS_ENGINE_SPEC_TYPE

// $TRAILS_MD_TIMEOUT (docs/engines.md, "Subprocess time limit"): the external engines' limit on
// each subprocess (grompp, mdrun, pmemd/sander; the command engine's program when
// engine.command_timeout is unset). Unset, empty or 0: none. Throws core::ConfigError naming the
// variable for anything but a finite number >= 0 (md_timeout.cpp).
std::optional<double> md_timeout_from_environment();

// Every field of a spec as JSON, and back: how a driver ships its engine to a worker process
// (docs/execution.md, "Persistent worker processes"). Doubles survive exactly (CBOR float64).
// engine_spec_from_json throws CorruptionError for JSON this build did not write.
nlohmann::json engine_spec_json(const EngineSpec& spec);
EngineSpec engine_spec_from_json(const nlohmann::json& j);

// The built-in spec of a run from its stored effective configuration (the ledger's
// effective_config), for pictures of the potential; nullopt when the run used another engine.
std::optional<BuiltinSpec> builtin_spec_of_run(const nlohmann::json& effective_config);

}  // namespace trails::config
