// One module per MD engine on the configuration side (docs/architecture.md, "How to add an
// engine"): its own rows of the `engine:` block (bound to the members they fill), its
// cross-field rules, the typed spec engines/ is built from, and its keys in the run's JSON
// views. registry.cpp is the one table of them; nothing else in config/ branches on an engine's
// name for these. Internal to the config module.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/config/cross_checks.h"
#include "trails/config/md_system_config.h"
#include "trails/config/schema.h"

namespace trails::config::detail {

struct EngineModule {
  std::string_view name;           // its engine.md_engine value
  std::vector<KeySpec> (*keys)();  // its own rows of the engine block (after the shared ones)
  // Its cross-field rules, run when engine.md_engine names it (openmm: also when unset, Trails-MD's
  // default engine); null: none.
  void (*check)(const RawConfig& raw, Problems& problems) = nullptr;
  EngineSpec (*spec)(const MdSystemConfig& md, const SegmentShape& segment);
  // Its keys in result_relevant_json (all = false) and effective_json (all = true), added only
  // when the run uses it, so other engines' digests never change.
  void (*values)(const MdSystemConfig& md, bool all, nlohmann::json& j);
  // MdSystemConfig::point_system() for a run of this engine; null: never (atoms in nm).
  bool (*point_system)(const MdSystemConfig& md) = nullptr;
  // Values derived after its rows are filled (build_md_system), for a run of this engine; null:
  // none.
  void (*finish)(const RawConfig& raw, MdSystemConfig& md) = nullptr;
  // Its values are in every run's record, whichever engine it uses (the built-in engine's keys,
  // written so before the modules existed: the digests of earlier runs include them).
  bool in_every_record = false;
  // Its spec as JSON and back (engine_spec_json, engine_spec_from_json: how a driver ships the
  // engine to a worker process); `owns` says whether a spec is its type (holds<Spec>).
  bool (*owns)(const EngineSpec& spec) = nullptr;
  nlohmann::json (*spec_json)(const EngineSpec& spec) = nullptr;
  EngineSpec (*spec_from_json)(const nlohmann::json& j) = nullptr;
};

template <class Spec>
bool holds(const EngineSpec& spec) {
  return std::holds_alternative<Spec>(spec);
}

// What the modules' spec JSON shares (engine_spec.cpp): optional paths and strings as JSON or
// null, and the keys every external engine's spec carries on the wire (where walkers run, what
// is kept, the subprocess limit).
nlohmann::json path_json(const std::optional<std::filesystem::path>& p);
std::optional<std::filesystem::path> path_of(const nlohmann::json& j);
nlohmann::json optional_string_json(const std::optional<std::string>& s);
std::optional<std::string> optional_string_of(const nlohmann::json& j);
void put_external(nlohmann::json& j, const WalkerFilesSpec& files,
                  const std::optional<double>& timeout_s);
void get_external(const nlohmann::json& j, WalkerFilesSpec& files,
                  std::optional<double>& timeout_s);

// Every engine, in documentation order; engine_names() gives engine.md_engine's choices.
const std::vector<const EngineModule*>& engine_modules();
std::vector<std::string_view> engine_names();
// The module of `name`; nullptr for a name no module has.
const EngineModule* engine_module(std::string_view name);

// The MD block every engine reads (engine.temperature, pressure, npt; MdBlockConfig) into
// j["engine"]; engine.dt is written for every run by md_system_values.
void md_block_values(const MdSystemConfig& md, nlohmann::json& j);
// The MD block into the specs that carry it themselves (the built-in engine's dt, the OpenMM
// engine's parameters); build_md_system and the swarm loader call it after changing the block.
void apply_md_block(EngineConfig& engine);
// engine.dt in a molecular engine's unit, ps: a value that is no MD time step (a unit slip) is
// refused, naming `engine` (engine_checks.cpp).
void check_md_time_step(const RawConfig& raw, const std::string& engine, Problems& problems);

// Each engine's module, one file each (config/engines/amber.cpp, ...): name_engine_module() for
// every entry of engine_list.h.
#define TRAILS_ENGINE_MODULE_DECLARATION(name, Keys, Spec) \
  const EngineModule& name##_engine_module();
TRAILS_ENGINES(TRAILS_ENGINE_MODULE_DECLARATION)
#undef TRAILS_ENGINE_MODULE_DECLARATION

}  // namespace trails::config::detail
