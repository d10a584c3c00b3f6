// The OpenMM engine's module (engine_module.h; docs/engines.md): its rows, its rules (run also
// when engine.md_engine is unset: Trails-MD's default engine), its spec and wire JSON, its JSON
// values, and the names of engine.reproducibility.
#include <string>

#include "trails/config/engines/engine_module.h"
#include "trails/config/key_row.h"
#include "trails/core/error.h"

namespace trails::config::detail {
namespace {

using T = ValueType;
using json = nlohmann::json;

Reproducibility reproducibility_of(const json& v) {
  return reproducibility_named(v.get<std::string>()).value_or(Reproducibility::Auto);
}

std::vector<KeySpec> openmm_keys() {
  return rows_of({
      K("engine", "platform_name", T::String, "CUDA")
          .one_of({"Reference", "CPU", "CUDA", "OpenCL", "HIP"})
          .fills([](auto& c) -> auto& { return c.engine.openmm.platform_name; }),
      K("engine", "precision", T::String, "mixed").one_of({"single", "mixed", "double"}).fills([
      ](auto& c) -> auto& { return c.engine.openmm.precision; }),
      // Added after runs were made: only when set, so their digests stay as they were.
      K("engine", "reproducibility", T::String, "auto")
          .one_of({"auto", "bitwise", "fast"})
          .written_when_set()
          .fills(
              [](auto& c) -> auto& { return c.engine.openmm.reproducibility; }, reproducibility_of,
              reproducibility_name),
      K("engine", "equilibrate", T::Bool, false).fills([](auto& c) -> auto& {
        return c.engine.openmm.equilibrate;
      }),
  });
}

// The OpenMM engine prepares its system from a structure; engine.dt is in ps.
void check_openmm(const RawConfig& raw, Problems& problems) {
  const Entry& md = raw.at("engine.md_engine");
  const Entry& conf = raw.at("system.conf_file");
  if (conf.valid && conf.value.is_null()) {
    problems.add(md.present ? md.value_at : md.key_at, "system.conf_file",
                 std::string(md.present ? ""
                                        : "engine.md_engine is not set, so Trails-MD's "
                                          "default openmm applies; ") +
                     "the OpenMM engine needs a structure: set system.conf_file (.pdb, .gro, "
                     ".inpcrd) and system.top_file, system.forcefield or system.system_file "
                     "(or use `engine.md_engine: builtin`)");
  }
  check_md_time_step(raw, "OpenMM", problems);
}

EngineSpec openmm_spec(const MdSystemConfig& md, const SegmentShape&) {
  OpenMMSpec spec;
  spec.params = md.engine.openmm;
  spec.inputs = {md.system.conf_file,           md.system.top_file,
                 md.system.system_file,         md.system.forcefield,
                 md.engine.gromacs_include_dir, md.engine.python};
  spec.seed_base = md.engine_seed_base();
  return spec;
}

void openmm_values(const MdSystemConfig& md, bool all, json& j) {
  static const std::vector<KeySpec> rows = openmm_keys();
  bound_values(rows, md, all, j);
  md_block_values(md, j);
  j["engine"]["gromacs_include_dir"] = value_json(md.engine.gromacs_include_dir);
  const SystemConfig& s = md.system;
  j["system"]["conf_file"] = value_json(s.conf_file);
  j["system"]["top_file"] = value_json(s.top_file);
  j["system"]["system_file"] = value_json(s.system_file);
  j["system"]["forcefield"] = s.forcefield;
  j["cvs"] = md.cvs;
  if (s.initial_trajectory) {  // only when set, so earlier digests stay as they were
    j["system"]["initial_trajectory"] = s.initial_trajectory->string();
  }
  if (s.project_file) {  // the path, not the module's content (docs/cvs.md)
    j["system"]["project_file"] = s.project_file->string();
  }
  if (s.trajectory_topology_file) {  // only when set (earlier digests unchanged)
    j["system"]["trajectory_topology_file"] = s.trajectory_topology_file->string();
  }
}

json openmm_spec_json(const EngineSpec& spec) {
  const OpenMMSpec& s = std::get<OpenMMSpec>(spec);
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

EngineSpec openmm_spec_from_json(const json& j) {
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

}  // namespace

const EngineModule& openmm_engine_module() {
  static const EngineModule module{.name = "openmm",
                                   .keys = openmm_keys,
                                   .check = check_openmm,
                                   .spec = openmm_spec,
                                   .values = openmm_values,
                                   .owns = holds<OpenMMSpec>,
                                   .spec_json = openmm_spec_json,
                                   .spec_from_json = openmm_spec_from_json};
  return module;
}

}  // namespace trails::config::detail

namespace trails::config {

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

}  // namespace trails::config
