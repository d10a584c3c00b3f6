// CampaignConfig::engine_spec(): the one place that turns engine.md_engine into a spec type.
#include "trails/config/campaign_config.h"
#include "trails/core/error.h"

namespace trails::config {

EngineSpec CampaignConfig::engine_spec() const {
  if (engine.md_engine == "builtin") return engine.builtin;
  if (engine.md_engine == "openmm") {
    OpenMMSpec spec;
    spec.params = engine.openmm;
    spec.inputs = {system.conf_file,           system.top_file,
                   system.system_file,         system.forcefield,
                   engine.gromacs_include_dir, engine.python};
    spec.seed_base = engine_seed_base();
    return spec;
  }
  // The schema admits only the engines above; reaching this is a bug, not bad input.
  throw core::InternalError("engine.md_engine: no spec for '" + engine.md_engine + "'");
}

std::optional<Potential> potential_named(const std::string& name) {
  static const std::pair<const char*, Potential> names[] = {
      {"double_well", Potential::DoubleWell},
      {"muller_brown", Potential::MullerBrown},
      {"three_well", Potential::ThreeWell},
      {"harmonic", Potential::Harmonic},
      {"biased_walk", Potential::BiasedWalk}};
  for (const auto& [n, p] : names) {
    if (name == n) return p;
  }
  return std::nullopt;
}

std::optional<BuiltinSpec> builtin_spec_of_run(const nlohmann::json& effective_config) {
  if (!effective_config.is_object() || !effective_config.contains("engine")) return std::nullopt;
  const auto& engine = effective_config["engine"];
  if (!engine.is_object() || engine.value("md_engine", "") != "builtin") return std::nullopt;
  const auto potential = potential_named(engine.value("potential", "muller_brown"));
  if (!potential) return std::nullopt;
  BuiltinSpec spec;
  spec.potential = *potential;
  spec.dimension = engine.value("dimension", spec.dimension);
  spec.kT = engine.value("kT", spec.kT);
  return spec;
}

}  // namespace trails::config
