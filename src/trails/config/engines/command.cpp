// The command engine's module (engine_module.h): a user's program runs each segment
// (docs/engines.md, "The command engine").
#include <string>

#include "trails/config/engines/engine_module.h"
#include "trails/config/key_row.h"

namespace trails::config::detail {
namespace {

using T = ValueType;
using json = nlohmann::json;

std::vector<KeySpec> command_keys() {
  const json null_v = nullptr;
  return rows_of({
      K("engine", "command", T::Command, null_v).null().engine("command").fills([
      ](auto& c) -> auto& { return c.engine.command.argv; }),
      // Where walkers run, not what they compute.
      K("engine", "command_timeout", T::Number, null_v)
          .null()
          .gt(0)
          .engine("command")
          .effective_only()
          .fills([](auto& c) -> auto& { return c.engine.command.timeout_s; }),
  });
}

// The command engine needs its program, and either a structure (molecular: .pdb/.gro) or a
// start point whose length is the CV dimension (a point system: its coordinates are the CVs).
void check_command(const RawConfig& raw, Problems& problems) {
  const Entry& md = raw.at("engine.md_engine");
  if (!(md.present && md.valid && md.value == "command")) return;
  const Entry& command = raw.at("engine.command");
  if (command.valid && command.value.is_null()) {
    problems.add(md.value_at, "engine.command",
                 "the command engine needs the program that runs one segment: set "
                 "engine.command (e.g. [python3, runseg.py]; docs/engines.md, \"The command "
                 "engine\")");
  }
  const Entry& conf = raw.at("system.conf_file");
  if (conf.valid && conf.value.is_string()) {
    const std::string file = conf.value.get<std::string>();
    const std::string ext = file.size() >= 4 ? file.substr(file.size() - 4) : file;
    if (ext != ".pdb" && ext != ".gro") {
      problems.add(conf.value_at, "system.conf_file",
                   "the command engine reads its topology from a .pdb or .gro file; convert " +
                       file + " to one of them");
    }
    refuse_start_point(raw, problems, "the command engine's molecular system");
    return;
  }
  const Entry& start = raw.at("system.start");
  if (!start.valid || start.value.is_null()) {
    problems.add(md.value_at, "system.start",
                 "the command engine needs a structure (system.conf_file: .pdb or .gro) or, "
                 "for a point system whose coordinates are the CVs, a start point "
                 "(system.start: [x, y, ...])");
    return;
  }
  const json& first = start.value[0].is_array() ? start.value[0] : start.value;
  std::string nbins_key;
  const std::vector<int> n_bins = effective_n_bins(raw, &nbins_key);
  const bool learned = raw.usable("space_mode") && raw.value("space_mode") != "fixed";
  if (!learned && raw.usable(nbins_key) && n_bins.size() != first.size()) {
    problems.add(raw.at(nbins_key).value_at, nbins_key,
                 "has " + count(n_bins.size(), "entry", "entries") +
                     " but the command engine's point system has " +
                     count(first.size(), "coordinate", "coordinates") +
                     " (system.start); its CV space is the coordinates, so give one bin count "
                     "per coordinate");
  }
  if (start.value[0].is_array()) {
    for (std::size_t i = 1; i < start.value.size(); ++i) {
      if (start.value[i].size() != first.size()) {
        problems.add(element_or_value(start, i), "system.start[" + std::to_string(i) + "]",
                     "has " + count(start.value[i].size(), "coordinate", "coordinates") +
                         " but system.start[0] has " + std::to_string(first.size()));
      }
    }
  }
}

EngineSpec command_spec(const MdSystemConfig& c, const SegmentShape&) {
  CommandSpec spec;
  spec.command = c.engine.command.argv;
  spec.timeout_s =
      c.engine.command.timeout_s ? c.engine.command.timeout_s : md_timeout_from_environment();
  spec.dt = c.engine.md.dt;
  spec.temperature = c.engine.md.temperature;
  spec.pressure = c.engine.md.pressure;
  spec.npt = c.engine.md.npt;
  spec.conf_file = c.system.conf_file;
  if (!spec.conf_file && !c.system.start.empty()) spec.start = c.system.start.front();
  spec.files = c.walker_files();
  return spec;
}

void command_values(const MdSystemConfig& c, bool all, json& j) {
  static const std::vector<KeySpec> rows = command_keys();
  bound_values(rows, c, all, j);
  md_block_values(c, j);
  j["system"]["conf_file"] = value_json(c.system.conf_file);
  j["cvs"] = c.cvs;
  if (all) {  // where walkers run, not what they compute
    j["engine"]["keep_walker_files"] = c.engine.keep_walker_files;
    j["execution"]["scratch"] = value_json(c.execution.scheduler.scratch);
  }
}

// A molecular system with a structure, else a point whose coordinates are the CVs.
bool point_system(const MdSystemConfig& c) { return !c.system.conf_file.has_value(); }

json command_spec_json(const EngineSpec& spec) {
  const CommandSpec& s = std::get<CommandSpec>(spec);
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

EngineSpec command_spec_from_json(const json& j) {
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

}  // namespace

const EngineModule& command_engine_module() {
  static const EngineModule module{.name = "command",
                                   .keys = command_keys,
                                   .check = check_command,
                                   .spec = command_spec,
                                   .values = command_values,
                                   .point_system = point_system,
                                   .owns = holds<CommandSpec>,
                                   .spec_json = command_spec_json,
                                   .spec_from_json = command_spec_from_json};
  return module;
}

}  // namespace trails::config::detail
