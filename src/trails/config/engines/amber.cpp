// The Amber engine's module (engine_module.h): pmemd/sander per segment (docs/engines.md, "The
// Amber engine").
#include <algorithm>
#include <filesystem>
#include <string>

#include "trails/config/engines/engine_module.h"
#include "trails/config/key_row.h"

namespace trails::config::detail {
namespace {

using T = ValueType;
using json = nlohmann::json;

std::vector<KeySpec> amber_keys() {
  const json null_v = nullptr;
  return rows_of({
      K("engine", "amber_executable", T::String, "pmemd").engine("amber").fills([
      ](auto& c) -> auto& { return c.engine.amber.executable; }),
      K("engine", "amber_input_file", T::FilePath, null_v).null().engine("amber").fills([
      ](auto& c) -> auto& { return c.engine.amber.input_file; }),
      K("engine", "amber_extra_args", T::StringList, json::array()).engine("amber").fills([
      ](auto& c) -> auto& { return c.engine.amber.extra_args; }),
      K("engine", "amber_trajectory_format", T::String, "auto")
          .one_of({"auto", "netcdf", "ascii"})
          .engine("amber")
          .fills([](auto& c) -> auto& { return c.engine.amber.trajectory_format; }),
  });
}

// The Amber engine runs from a prmtop and a start coordinate file (docs/engines.md).
void check_amber(const RawConfig& raw, Problems& problems) {
  const Entry& md = raw.at("engine.md_engine");
  if (!(md.present && md.valid && md.value == "amber")) return;
  const auto require = [&](const char* key, const std::vector<std::string>& extensions,
                           const char* what) {
    const Entry& e = raw.at(key);
    if (!e.valid) return;
    if (e.value.is_null()) {
      problems.add(md.value_at, key, std::string("the Amber engine needs ") + what);
      return;
    }
    const std::string file = e.value.get<std::string>();
    const std::string ext = std::filesystem::path(file).extension().string();
    if (std::find(extensions.begin(), extensions.end(), ext) == extensions.end()) {
      std::string list;
      for (const auto& x : extensions) list += (list.empty() ? "" : ", ") + x;
      problems.add(e.value_at, key,
                   "the Amber engine reads " + std::string(what) + " (" + list + "); " + file +
                       " is none of them");
    }
  };
  require("system.top_file", {".prmtop", ".parm7"}, "an Amber prmtop");
  require("system.conf_file", {".inpcrd", ".rst7", ".ncrst", ".rst", ".crd"},
          "an Amber coordinate or restart file");
  refuse_start_point(raw, problems, "the Amber engine");
  check_md_time_step(raw, "Amber", problems);
}

EngineSpec amber_spec(const MdSystemConfig& c, const SegmentShape&) {
  AmberSpec spec;
  spec.executable = c.engine.amber.executable;
  spec.input_file = c.engine.amber.input_file;
  spec.extra_args = c.engine.amber.extra_args;
  spec.timeout_s = md_timeout_from_environment();
  spec.netcdf = c.engine.amber.trajectory_format != "ascii";
  // check_amber required both files.
  spec.top_file = c.system.top_file.value_or(std::filesystem::path());
  spec.conf_file = c.system.conf_file.value_or(std::filesystem::path());
  spec.dt = c.engine.md.dt;
  spec.temperature = c.engine.md.temperature;
  spec.pressure = c.engine.md.pressure;
  spec.npt = c.engine.md.npt;
  spec.files = c.walker_files();
  return spec;
}

void amber_values(const MdSystemConfig& c, bool all, json& j) {
  static const std::vector<KeySpec> rows = amber_keys();
  bound_values(rows, c, all, j);
  md_block_values(c, j);
  j["system"]["conf_file"] = value_json(c.system.conf_file);
  j["system"]["top_file"] = value_json(c.system.top_file);
  j["cvs"] = c.cvs;
  if (all) j["engine"]["keep_walker_files"] = c.engine.keep_walker_files;
}

json amber_spec_json(const EngineSpec& spec) {
  const AmberSpec& s = std::get<AmberSpec>(spec);
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

EngineSpec amber_spec_from_json(const json& j) {
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

const EngineModule& amber_engine_module() {
  static const EngineModule module{.name = "amber",
                                   .keys = amber_keys,
                                   .check = check_amber,
                                   .spec = amber_spec,
                                   .values = amber_values,
                                   .owns = holds<AmberSpec>,
                                   .spec_json = amber_spec_json,
                                   .spec_from_json = amber_spec_from_json};
  return module;
}

}  // namespace trails::config::detail
