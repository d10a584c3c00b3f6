// The table of engine modules (engine_module.h), generated from the engine list
// (engine_list.h): adding an engine adds its line there, not here.
#include "trails/config/engines/engine_module.h"
#include "trails/config/key_row.h"

namespace trails::config::detail {

const std::vector<const EngineModule*>& engine_modules() {
#define TRAILS_ENGINE_MODULE_ENTRY(name, Keys, Spec) &name##_engine_module(),
  static const std::vector<const EngineModule*> modules = {
      TRAILS_ENGINES(TRAILS_ENGINE_MODULE_ENTRY)};
#undef TRAILS_ENGINE_MODULE_ENTRY
  return modules;
}

std::vector<std::string_view> engine_names() {
  std::vector<std::string_view> names;
  for (const EngineModule* module : engine_modules()) names.push_back(module->name);
  return names;
}

const EngineModule* engine_module(std::string_view name) {
  for (const EngineModule* module : engine_modules()) {
    if (module->name == name) return module;
  }
  return nullptr;
}

void md_block_values(const MdSystemConfig& c, nlohmann::json& j) {
  nlohmann::json& e = j["engine"];
  e["temperature"] = c.engine.md.temperature;
  e["pressure"] = c.engine.md.pressure;
  e["npt"] = c.engine.md.npt;
}

void apply_md_block(EngineConfig& engine) {
  engine.builtin.dt = engine.md.dt;
  engine.openmm.temperature = engine.md.temperature;
  engine.openmm.pressure = engine.md.pressure;
  engine.openmm.npt = engine.md.npt;
  engine.openmm.dt = engine.md.dt;
}

}  // namespace trails::config::detail
