// The built-in analytic engine's module (engine_module.h; docs/engines.md, "The built-in
// engine"). Its keys are the shared engine block's (potential, kT, ...) and go into every run's
// JSON (campaign_json.cpp); its spec is its parameters.
#include "trails/config/engines/engine_module.h"
#include "trails/config/key_row.h"

namespace trails::config::detail {
namespace {

using json = nlohmann::json;

// Its rows are still in the shared table (schema.cpp); they move here as the amber and command
// modules' did.
std::vector<KeySpec> no_own_keys() { return {}; }

EngineSpec builtin_spec(const CampaignConfig& c) { return c.engine.builtin; }

void builtin_values(const CampaignConfig&, bool, json&) {}

}  // namespace

const EngineModule& builtin_engine_module() {
  static const EngineModule module{"builtin", no_own_keys, nullptr, builtin_spec, builtin_values};
  return module;
}

}  // namespace trails::config::detail
