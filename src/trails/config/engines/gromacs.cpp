// The GROMACS engine's module (engine_module.h; docs/engines.md, "The GROMACS engine").
#include <filesystem>
#include <string>
#include <utility>

#include "trails/config/engines/engine_module.h"
#include "trails/config/key_row.h"

namespace trails::config::detail {
namespace {

using T = ValueType;
using json = nlohmann::json;

// All of them can change the frames (thread counts included, unless -reprod is given), so all
// are result-relevant.
std::vector<KeySpec> gromacs_keys() {
  const json null_v = nullptr;
  return rows_of({
      K("engine", "gromacs_executable", T::String, "gmx").engine("gromacs").fills([
      ](auto& c) -> auto& { return c.engine.gromacs.executable; }),
      K("engine", "gromacs_mdrun_ntmpi", T::Int, 1).gt(0).engine("gromacs").fills([
      ](auto& c) -> auto& { return c.engine.gromacs.mdrun_ntmpi; }),
      K("engine", "gromacs_mdrun_ntomp", T::Int, null_v).null().gt(0).engine("gromacs").fills([
      ](auto& c) -> auto& { return c.engine.gromacs.mdrun_ntomp; }),
      K("engine", "gromacs_mdrun_nb", T::String, null_v)
          .null()
          .one_of({"auto", "cpu", "gpu"})
          .engine("gromacs")
          .fills([](auto& c) -> auto& { return c.engine.gromacs.mdrun_nb; }),
      K("engine", "gromacs_mdrun_pme", T::String, null_v)
          .null()
          .one_of({"auto", "cpu", "gpu"})
          .engine("gromacs")
          .fills([](auto& c) -> auto& { return c.engine.gromacs.mdrun_pme; }),
      K("engine", "gromacs_mdrun_update", T::String, null_v)
          .null()
          .one_of({"auto", "cpu", "gpu"})
          .engine("gromacs")
          .fills([](auto& c) -> auto& { return c.engine.gromacs.mdrun_update; }),
      K("engine", "gromacs_mdrun_bonded", T::String, null_v)
          .null()
          .one_of({"auto", "cpu", "gpu"})
          .engine("gromacs")
          .fills([](auto& c) -> auto& { return c.engine.gromacs.mdrun_bonded; }),
      K("engine", "gromacs_mdrun_pin", T::String, null_v)
          .null()
          .one_of({"auto", "on", "off"})
          .engine("gromacs")
          .fills([](auto& c) -> auto& { return c.engine.gromacs.mdrun_pin; }),
      K("engine", "gromacs_mdrun_extra_args", T::StringList, json::array())
          .engine("gromacs")
          .fills([](auto& c) -> auto& { return c.engine.gromacs.mdrun_extra_args; }),
      K("engine", "gromacs_grompp_maxwarn", T::Int, 0).ge(0).engine("gromacs").fills([
      ](auto& c) -> auto& { return c.engine.gromacs.grompp_maxwarn; }),
  });
}

// The GROMACS engine runs grompp on system.conf_file (.gro/.pdb) and system.top_file (.top);
// system.system_file, when set, is the MDP template (docs/engines.md, "GROMACS").
void check_gromacs(const RawConfig& raw, Problems& problems) {
  const Entry& md = raw.at("engine.md_engine");
  if (!(md.present && md.valid && md.value == "gromacs")) return;
  const std::pair<const char*, const char*> needed[] = {
      {"system.conf_file", "a start structure (.gro or .pdb)"},
      {"system.top_file", "a GROMACS topology (.top)"}};
  for (const auto& [key, what] : needed) {
    const Entry& e = raw.at(key);
    if (e.valid && e.value.is_null()) {
      problems.add(md.value_at, key,
                   std::string("the GROMACS engine needs ") + what + ": set " + key);
    }
  }
  if (raw.usable("spawning.step") && raw.usable("spawning.stride")) {
    const int step = raw.value("spawning.step").get<int>();
    const int stride = raw.value("spawning.stride").get<int>();
    if (stride > 0 && step % stride != 0) {
      const Entry& e = raw.at("spawning.step");
      problems.add(e.present ? e.value_at : md.value_at, "spawning.step",
                   std::to_string(step) + " is not a multiple of spawning.stride " +
                       std::to_string(stride) +
                       "; the GROMACS engine takes each walker's final state from its last TRR "
                       "frame, so give a step count that the stride divides");
    }
  }
  const Entry& top = raw.at("system.top_file");
  if (top.present && top.valid && top.value.is_string()) {
    const std::string t = top.value.get<std::string>();
    if (t.size() < 4 || t.substr(t.size() - 4) != ".top") {
      problems.add(top.value_at, "system.top_file",
                   "is '" + t + "'; the GROMACS engine reads a GROMACS .top file");
    }
  }
  check_md_time_step(raw, "GROMACS", problems);
}

EngineSpec gromacs_spec(const MdSystemConfig& md, const SegmentShape& segment) {
  GromacsSpec spec;
  spec.params = md.engine.gromacs;
  // check_gromacs made both required.
  spec.conf_file = md.system.conf_file.value_or(std::filesystem::path());
  spec.top_file = md.system.top_file.value_or(std::filesystem::path());
  spec.mdp_template = md.system.system_file;
  spec.include_dir = md.engine.gromacs_include_dir;
  spec.files = md.walker_files();
  spec.timeout_s = md_timeout_from_environment();
  spec.temperature = md.engine.md.temperature;
  spec.pressure = md.engine.md.pressure;
  spec.npt = md.engine.md.npt;
  spec.dt = md.engine.md.dt;
  spec.steps = segment.steps;
  spec.stride = segment.stride;
  return spec;
}

void gromacs_values(const MdSystemConfig& md, bool all, json& j) {
  static const std::vector<KeySpec> rows = gromacs_keys();
  bound_values(rows, md, all, j);
  md_block_values(md, j);
  json& e = j["engine"];
  e["gromacs_include_dir"] = value_json(md.engine.gromacs_include_dir);
  j["system"]["conf_file"] = value_json(md.system.conf_file);
  j["system"]["top_file"] = value_json(md.system.top_file);
  j["system"]["system_file"] = value_json(md.system.system_file);
  j["cvs"] = md.cvs;
  if (md.system.trajectory_topology_file) {
    j["system"]["trajectory_topology_file"] = md.system.trajectory_topology_file->string();
  }
  if (md.system.project_file) j["system"]["project_file"] = md.system.project_file->string();
  if (all) {  // where walkers run, not what they compute
    j["execution"]["scratch"] = value_json(md.execution.scheduler.scratch);
    e["keep_walker_files"] = md.engine.keep_walker_files;
  }
}

json gromacs_spec_json(const EngineSpec& spec) {
  const GromacsSpec& s = std::get<GromacsSpec>(spec);
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

EngineSpec gromacs_spec_from_json(const json& j) {
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

}  // namespace

const EngineModule& gromacs_engine_module() {
  static const EngineModule module{.name = "gromacs",
                                   .keys = gromacs_keys,
                                   .check = check_gromacs,
                                   .spec = gromacs_spec,
                                   .values = gromacs_values,
                                   .owns = holds<GromacsSpec>,
                                   .spec_json = gromacs_spec_json,
                                   .spec_from_json = gromacs_spec_from_json};
  return module;
}

}  // namespace trails::config::detail
