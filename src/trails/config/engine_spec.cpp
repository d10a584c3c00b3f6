// CampaignConfig::engine_spec() through the engine modules' table (config/engines/);
// potential names; a spec as JSON and back (for worker processes).
#include <utility>

#include "trails/config/campaign_config.h"
#include "trails/config/engines/engine_module.h"
#include "trails/core/error.h"

namespace trails::config {

EngineSpec CampaignConfig::engine_spec() const {
  const detail::EngineModule* module = detail::engine_module(engine.md_engine);
  // The schema admits only the registry's engines; reaching this is a bug, not bad input.
  if (module == nullptr) {
    throw core::InternalError("engine.md_engine: no spec for '" + engine.md_engine + "'");
  }
  return module->spec(*this);
}

WalkerFilesSpec CampaignConfig::walker_files() const {
  WalkerFilesSpec files;
  if (execution.scheduler.scratch) files.scratch = *execution.scheduler.scratch;
  files.keep_walker_files = engine.keep_walker_files;
  return files;
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
          {"reproducibility", reproducibility_name(o.reproducibility)},
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
  const auto reproducibility = reproducibility_named(j.at("reproducibility").get<std::string>());
  if (!reproducibility) throw core::CorruptionError("engine spec: unknown reproducibility");
  o.reproducibility = *reproducibility;
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

json optional_string_json(const std::optional<std::string>& s) {
  return s ? json(*s) : json(nullptr);
}
std::optional<std::string> optional_string_of(const json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get<std::string>();
}

// The keys every external engine's spec carries on the wire: where walkers run, what is kept,
// the subprocess limit.
void put_external(json& j, const WalkerFilesSpec& files, const std::optional<double>& timeout_s) {
  j["scratch"] = path_json(files.scratch);
  j["keep_walker_files"] = files.keep_walker_files;
  j["timeout_s"] = timeout_s ? json(*timeout_s) : json(nullptr);
}
void get_external(const json& j, WalkerFilesSpec& files, std::optional<double>& timeout_s) {
  files.scratch = path_of(j.at("scratch"));
  files.keep_walker_files = j.at("keep_walker_files").get<bool>();
  if (!j.at("timeout_s").is_null()) timeout_s = j.at("timeout_s").get<double>();
}

json gromacs_json(const GromacsSpec& s) {
  const GromacsEngineConfig& g = s.params;
  json j = {{"engine", "gromacs"},
            {"executable", g.executable},
            {"mdrun_ntmpi", g.mdrun_ntmpi},
            {"mdrun_ntomp", g.mdrun_ntomp ? json(*g.mdrun_ntomp) : json(nullptr)},
            {"mdrun_nb", optional_string_json(g.mdrun_nb)},
            {"mdrun_pme", optional_string_json(g.mdrun_pme)},
            {"mdrun_update", optional_string_json(g.mdrun_update)},
            {"mdrun_bonded", optional_string_json(g.mdrun_bonded)},
            {"mdrun_pin", optional_string_json(g.mdrun_pin)},
            {"mdrun_extra_args", g.mdrun_extra_args},
            {"grompp_maxwarn", g.grompp_maxwarn},
            {"conf_file", s.conf_file.string()},
            {"top_file", s.top_file.string()},
            {"mdp_template", path_json(s.mdp_template)},
            {"include_dir", path_json(s.include_dir)},
            {"temperature", s.temperature},
            {"pressure", s.pressure},
            {"npt", s.npt},
            {"dt", s.dt},
            {"steps", s.steps},
            {"stride", s.stride}};
  put_external(j, s.files, s.timeout_s);
  return j;
}

GromacsSpec gromacs_from(const json& j) {
  GromacsSpec s;
  GromacsEngineConfig& g = s.params;
  g.executable = j.at("executable").get<std::string>();
  g.mdrun_ntmpi = j.at("mdrun_ntmpi").get<int>();
  if (!j.at("mdrun_ntomp").is_null()) g.mdrun_ntomp = j.at("mdrun_ntomp").get<int>();
  g.mdrun_nb = optional_string_of(j.at("mdrun_nb"));
  g.mdrun_pme = optional_string_of(j.at("mdrun_pme"));
  g.mdrun_update = optional_string_of(j.at("mdrun_update"));
  g.mdrun_bonded = optional_string_of(j.at("mdrun_bonded"));
  g.mdrun_pin = optional_string_of(j.at("mdrun_pin"));
  g.mdrun_extra_args = j.at("mdrun_extra_args").get<std::vector<std::string>>();
  g.grompp_maxwarn = j.at("grompp_maxwarn").get<int>();
  s.conf_file = j.at("conf_file").get<std::string>();
  s.top_file = j.at("top_file").get<std::string>();
  s.mdp_template = path_of(j.at("mdp_template"));
  s.include_dir = path_of(j.at("include_dir"));
  get_external(j, s.files, s.timeout_s);
  s.temperature = j.at("temperature").get<double>();
  s.pressure = j.at("pressure").get<double>();
  s.npt = j.at("npt").get<bool>();
  s.dt = j.at("dt").get<double>();
  s.steps = j.at("steps").get<int>();
  s.stride = j.at("stride").get<int>();
  return s;
}

json command_json(const CommandSpec& s) {
  json j = {{"engine", "command"},
            {"command", s.command},
            {"dt", s.dt},
            {"temperature", s.temperature},
            {"pressure", s.pressure},
            {"npt", s.npt},
            {"conf_file", path_json(s.conf_file)},
            {"start", s.start}};
  put_external(j, s.files, s.timeout_s);
  return j;
}

CommandSpec command_from(const json& j) {
  CommandSpec s;
  s.command = j.at("command").get<std::vector<std::string>>();
  s.dt = j.at("dt").get<double>();
  s.temperature = j.at("temperature").get<double>();
  s.pressure = j.at("pressure").get<double>();
  s.npt = j.at("npt").get<bool>();
  s.conf_file = path_of(j.at("conf_file"));
  s.start = j.at("start").get<std::vector<double>>();
  get_external(j, s.files, s.timeout_s);
  return s;
}

json amber_json(const AmberSpec& s) {
  json j = {{"engine", "amber"},
            {"executable", s.executable},
            {"input_file", path_json(s.input_file)},
            {"extra_args", s.extra_args},
            {"netcdf", s.netcdf},
            {"top_file", s.top_file.string()},
            {"conf_file", s.conf_file.string()},
            {"dt", s.dt},
            {"temperature", s.temperature},
            {"pressure", s.pressure},
            {"npt", s.npt}};
  put_external(j, s.files, s.timeout_s);
  return j;
}

AmberSpec amber_from(const json& j) {
  AmberSpec s;
  s.executable = j.at("executable").get<std::string>();
  s.input_file = path_of(j.at("input_file"));
  s.extra_args = j.at("extra_args").get<std::vector<std::string>>();
  s.netcdf = j.at("netcdf").get<bool>();
  s.top_file = j.at("top_file").get<std::string>();
  s.conf_file = j.at("conf_file").get<std::string>();
  s.dt = j.at("dt").get<double>();
  s.temperature = j.at("temperature").get<double>();
  s.pressure = j.at("pressure").get<double>();
  s.npt = j.at("npt").get<bool>();
  get_external(j, s.files, s.timeout_s);
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

std::optional<Reproducibility> reproducibility_named(const std::string& name) {
  if (name == "auto") return Reproducibility::Auto;
  if (name == "bitwise") return Reproducibility::Bitwise;
  if (name == "fast") return Reproducibility::Fast;
  return std::nullopt;
}

const char* reproducibility_name(Reproducibility r) {
  switch (r) {
    case Reproducibility::Bitwise:
      return "bitwise";
    case Reproducibility::Fast:
      return "fast";
    case Reproducibility::Auto:
      break;
  }
  return "auto";
}

nlohmann::json engine_spec_json(const EngineSpec& spec) {
  if (const auto* b = std::get_if<BuiltinSpec>(&spec)) return builtin_json(*b);
  if (const auto* g = std::get_if<GromacsSpec>(&spec)) return gromacs_json(*g);
  if (const auto* c = std::get_if<CommandSpec>(&spec)) return command_json(*c);
  if (const auto* a = std::get_if<AmberSpec>(&spec)) return amber_json(*a);
  return openmm_json(std::get<OpenMMSpec>(spec));
}

EngineSpec engine_spec_from_json(const nlohmann::json& j) {
  try {
    const std::string engine = j.at("engine").get<std::string>();
    if (engine == "builtin") return builtin_from(j);
    if (engine == "openmm") return openmm_from(j);
    if (engine == "gromacs") return gromacs_from(j);
    if (engine == "command") return command_from(j);
    if (engine == "amber") return amber_from(j);
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
