// One module per MD engine on the configuration side (docs/architecture.md, "How to add an
// engine"): its own rows of the `engine:` block (bound to the members they fill), its
// cross-field rules, the typed spec engines/ is built from, and its keys in the run's JSON
// views. registry.cpp is the one table of them; nothing else in config/ branches on an engine's
// name for these. Internal to the config module.
#pragma once

#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/config/campaign_config.h"
#include "trails/config/cross_checks.h"
#include "trails/config/schema.h"

namespace trails::config::detail {

struct EngineModule {
  std::string_view name;           // its engine.md_engine value
  std::vector<KeySpec> (*keys)();  // its own rows of the engine block (after the shared ones)
  // Its cross-field rules, run when engine.md_engine names it explicitly; null: none.
  void (*check)(const RawConfig& raw, Problems& problems) = nullptr;
  EngineSpec (*spec)(const CampaignConfig& c);  // CampaignConfig::engine_spec()
  // Its keys in result_relevant_json (all = false) and effective_json (all = true), added only
  // when the run uses it, so other engines' digests never change.
  void (*values)(const CampaignConfig& c, bool all, nlohmann::json& j);
};

// Every engine, in documentation order; engine_names() gives engine.md_engine's choices.
const std::vector<const EngineModule*>& engine_modules();
std::vector<std::string_view> engine_names();
// The module of `name`; nullptr for a name no module has.
const EngineModule* engine_module(std::string_view name);

// The bound rows' values of `rows` into j["engine"] (K::fills).
void bound_values(const std::vector<KeySpec>& rows, const CampaignConfig& c, nlohmann::json& j);
// The MD block every engine reads (engine.temperature, pressure, npt; MdBlockConfig) into
// j["engine"]; engine.dt is written for every run by campaign_json.cpp.
void md_block_values(const CampaignConfig& c, nlohmann::json& j);
// The MD block into the specs that carry it themselves (the built-in engine's dt, the OpenMM
// engine's parameters); build_config and the swarm loader call it after changing the block.
void apply_md_block(EngineConfig& engine);

// Each engine's module, one file each (config/engines/amber.cpp, ...).
const EngineModule& builtin_engine_module();
const EngineModule& openmm_engine_module();
const EngineModule& gromacs_engine_module();
const EngineModule& amber_engine_module();
const EngineModule& command_engine_module();

}  // namespace trails::config::detail
