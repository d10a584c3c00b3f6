// CampaignConfig::engine_spec(): the one place that turns engine.md_engine into a spec type;
// potential names; a spec as JSON and back (for worker processes).
#include <utility>

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

namespace {

constexpr std::pair<const char*, Potential> kPotentialNames[] = {
    {"double_well", Potential::DoubleWell},
    {"muller_brown", Potential::MullerBrown},
    {"three_well", Potential::ThreeWell},
    {"harmonic", Potential::Harmonic},
    {"biased_walk", Potential::BiasedWalk}};

using json = nlohmann::json;

json path_json(const std::optional<std::filesystem::path>& p) {
  return p ? json(p->string()) : json(nullptr);
}
std::optional<std::filesystem::path> path_of(const json& j) {
  if (j.is_null()) return std::nullopt;
  return std::filesystem::path(j.get<std::string>());
}

json builtin_json(const BuiltinSpec& b) {
  return {{"engine", "builtin"},
          {"potential", potential_name(b.potential)},
          {"integrator", b.integrator == Integrator::Langevin ? "langevin" : "overdamped"},
          {"kT", b.kT},
          {"dt", b.dt},
          {"friction", b.friction},
          {"mass", b.mass},
          {"synthetic_cost_ms", b.synthetic_cost_ms},
          {"synthetic_startup_ms", b.synthetic_startup_ms},
          {"dimension", b.dimension}};
}

BuiltinSpec builtin_from(const json& j) {
  BuiltinSpec b;
  const auto potential = potential_named(j.at("potential").get<std::string>());
  if (!potential) throw core::CorruptionError("engine spec: unknown potential " + j.dump());
  b.potential = *potential;
  b.integrator = j.at("integrator") == "langevin" ? Integrator::Langevin : Integrator::Overdamped;
  b.kT = j.at("kT").get<double>();
  b.dt = j.at("dt").get<double>();
  b.friction = j.at("friction").get<double>();
  b.mass = j.at("mass").get<double>();
  b.synthetic_cost_ms = j.at("synthetic_cost_ms").get<double>();
  b.synthetic_startup_ms = j.at("synthetic_startup_ms").get<double>();
  b.dimension = j.at("dimension").get<int>();
  return b;
}

json openmm_json(const OpenMMSpec& s) {
  const OpenMMEngineConfig& o = s.params;
  const MolecularInputs& in = s.inputs;
  return {{"engine", "openmm"},
          {"temperature", o.temperature},
          {"velocity_temperature",
           o.velocity_temperature ? json(*o.velocity_temperature) : json(nullptr)},
          {"pressure", o.pressure},
          {"npt", o.npt},
          {"dt", o.dt},
          {"platform_name", o.platform_name},
          {"precision", o.precision},
          {"equilibrate", o.equilibrate},
          {"device_index", o.device_index ? json(*o.device_index) : json(nullptr)},
          {"friction", o.friction},
          {"barostat_interval", o.barostat_interval},
          {"constraint_tolerance", o.constraint_tolerance},
          {"equilibration_steps", o.equilibration_steps},
          {"conf_file", path_json(in.conf_file)},
          {"top_file", path_json(in.top_file)},
          {"system_file", path_json(in.system_file)},
          {"forcefield", in.forcefield},
          {"gromacs_include_dir", path_json(in.gromacs_include_dir)},
          {"python", in.python ? json(*in.python) : json(nullptr)},
          {"seed_base", s.seed_base}};
}

OpenMMSpec openmm_from(const json& j) {
  OpenMMSpec s;
  OpenMMEngineConfig& o = s.params;
  o.temperature = j.at("temperature").get<double>();
  if (j.contains("velocity_temperature") && !j.at("velocity_temperature").is_null()) {
    o.velocity_temperature = j.at("velocity_temperature").get<double>();
  }
  o.pressure = j.at("pressure").get<double>();
  o.npt = j.at("npt").get<bool>();
  o.dt = j.at("dt").get<double>();
  o.platform_name = j.at("platform_name").get<std::string>();
  o.precision = j.at("precision").get<std::string>();
  o.equilibrate = j.at("equilibrate").get<bool>();
  if (!j.at("device_index").is_null()) o.device_index = j.at("device_index").get<int>();
  o.friction = j.at("friction").get<double>();
  o.barostat_interval = j.at("barostat_interval").get<int>();
  o.constraint_tolerance = j.at("constraint_tolerance").get<double>();
  o.equilibration_steps = j.at("equilibration_steps").get<int>();
  MolecularInputs& in = s.inputs;
  in.conf_file = path_of(j.at("conf_file"));
  in.top_file = path_of(j.at("top_file"));
  in.system_file = path_of(j.at("system_file"));
  in.forcefield = j.at("forcefield").get<std::vector<std::string>>();
  in.gromacs_include_dir = path_of(j.at("gromacs_include_dir"));
  if (!j.at("python").is_null()) in.python = j.at("python").get<std::string>();
  s.seed_base = j.at("seed_base").get<std::uint64_t>();
  return s;
}

}  // namespace

std::optional<Potential> potential_named(const std::string& name) {
  for (const auto& [n, p] : kPotentialNames) {
    if (name == n) return p;
  }
  return std::nullopt;
}

const char* potential_name(Potential potential) {
  for (const auto& [n, p] : kPotentialNames) {
    if (potential == p) return n;
  }
  return "muller_brown";
}

nlohmann::json engine_spec_json(const EngineSpec& spec) {
  if (const auto* b = std::get_if<BuiltinSpec>(&spec)) return builtin_json(*b);
  return openmm_json(std::get<OpenMMSpec>(spec));
}

EngineSpec engine_spec_from_json(const nlohmann::json& j) {
  try {
    const std::string engine = j.at("engine").get<std::string>();
    if (engine == "builtin") return builtin_from(j);
    if (engine == "openmm") return openmm_from(j);
    throw core::CorruptionError("engine spec: unknown engine '" + engine + "'");
  } catch (const json::exception& e) {
    throw core::CorruptionError(std::string("engine spec from the driver: ") + e.what());
  }
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
