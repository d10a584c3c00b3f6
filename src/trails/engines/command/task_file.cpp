// The task file of docs/engines.md ("The command engine"): names and layout are the contract,
// so a change here is a new kTaskFileVersion.
#include "trails/engines/command/task_file.h"

#include <algorithm>
#include <cctype>
#include <fstream>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/npy.h"
#include "trails/structure/structure_file.h"

namespace trails::engines::command {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json path_or_null(bool present, const fs::path& p) { return present ? json(p.string()) : json(); }

// The start's arrays are (n_atoms, spatial_dim): one of another size is the walker's failure,
// said in the system's terms before any file is written.
void check_start(const Configuration& c, const TaskSystem& s) {
  const auto n = static_cast<std::size_t>(s.n_atoms) * static_cast<std::size_t>(s.spatial_dim);
  const auto refuse = [&](const char* what, std::size_t size) {
    throw core::InputError(fmt::format(
        "start configuration has {} {} but the system needs {} (n_atoms {} x spatial_dim {})", size,
        what, n, s.n_atoms, s.spatial_dim));
  };
  if (c.positions.size() != n) refuse("coordinates", c.positions.size());
  if (!c.velocities.empty() && c.velocities.size() != n) {
    refuse("velocity components", c.velocities.size());
  }
}

json start_files(const SegmentTask& task, const TaskSystem& s, const fs::path& dir) {
  const Configuration& c = task.start;
  check_start(c, s);
  const bool velocities = !c.velocities.empty();
  const bool box = c.box.size() == 9;
  core::write_npy(dir / "start_positions.npy", c.positions, {s.n_atoms, s.spatial_dim});
  if (velocities) {
    core::write_npy(dir / "start_velocities.npy", c.velocities, {s.n_atoms, s.spatial_dim});
  }
  if (box) core::write_npy(dir / "start_box.npy", c.box, {3, 3});
  const bool structure = s.molecular && s.topology != nullptr;
  if (structure) {  // 3 decimals in Å: a convenience for programs that read PDB, not the state
    std::optional<structure::Box> b;
    if (box) std::copy(c.box.begin(), c.box.end(), b.emplace().begin());
    structure::write_structure(dir / "start.pdb", *s.topology, c.positions, b);
  }
  return {{"positions", (dir / "start_positions.npy").string()},
          {"velocities", path_or_null(velocities, dir / "start_velocities.npy")},
          {"box", path_or_null(box, dir / "start_box.npy")},
          {"structure", path_or_null(structure, dir / "start.pdb")},
          {"topology", s.conf_file ? json(s.conf_file->string()) : json()}};
}

json output_files(const fs::path& dir, bool molecular) {
  return {{"frames_npy", (dir / "frames.npy").string()},
          {"frames_xtc", path_or_null(molecular, dir / "frames.xtc")},
          {"frames_dcd", path_or_null(molecular, dir / "frames.dcd")},
          {"frame_boxes", (dir / "frame_boxes.npy").string()},
          {"final_positions", (dir / "final_positions.npy").string()},
          {"final_velocities", (dir / "final_velocities.npy").string()},
          {"final_box", (dir / "final_box.npy").string()}};
}

std::string env_value(const json& v) {
  if (v.is_null()) return {};
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());  // shortest round trip
  return v.dump();
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

[[noreturn]] void bad_task(const fs::path& file, const std::string& what) {
  throw core::InputError(file.string() + ": " + what);
}

std::vector<double> read_doubles(const fs::path& task_file, const json& path) {
  if (path.is_null()) return {};
  const core::NpyArray a = core::read_npy(path.get<std::string>());
  if (a.kind != 'f') bad_task(task_file, path.get<std::string>() + " is not a float array");
  std::vector<double> out(static_cast<std::size_t>(a.n_elements()));
  for (std::int64_t i = 0; i < a.n_elements(); ++i)
    out[static_cast<std::size_t>(i)] = a.float_at(i);
  return out;
}

}  // namespace

json write_task_files(const SegmentTask& task, const TaskSystem& s, const fs::path& dir) {
  json j = {{"format", "trails-segment-task"},
            {"version", kTaskFileVersion},
            {"iteration", task.iteration},
            {"walker", task.walker},
            {"seed", task.seed},
            {"steps", task.steps},
            {"stride", task.stride},
            {"n_frames", task.stride > 0 ? task.steps / task.stride : 0},
            {"dt", s.dt},
            {"time_unit", s.time_unit},
            {"length_unit", s.length_unit},
            {"temperature", s.temperature},
            {"pressure", s.pressure},
            {"npt", s.npt},
            {"device", s.device ? json(*s.device) : json()},
            {"n_atoms", s.n_atoms},
            {"spatial_dim", s.spatial_dim},
            {"molecular", s.molecular},
            {"work_dir", dir.string()}};
  j["start"] = start_files(task, s, dir);
  j["outputs"] = output_files(dir, s.molecular);
  std::ofstream(dir / "task.json") << j.dump(2) << '\n';
  return j;
}

std::vector<std::pair<std::string, std::string>> task_environment(const json& task,
                                                                  const fs::path& task_file) {
  std::vector<std::pair<std::string, std::string>> env = {{"TRAILS_TASK_FILE", task_file.string()}};
  for (const auto& [key, value] : task.items()) {
    if (key == "format" || key == "version" || key == "outputs" || key == "start") continue;
    env.emplace_back("TRAILS_" + upper(key), env_value(value));
  }
  for (const auto& [key, value] : task.at("start").items()) {
    env.emplace_back("TRAILS_START_" + upper(key), env_value(value));
  }
  for (const auto& [key, value] : task.at("outputs").items()) {
    env.emplace_back("TRAILS_" + upper(key), env_value(value));
  }
  return env;
}

TaskRequest read_task_file(const fs::path& file) {
  TaskRequest r;
  try {
    std::ifstream in(file);
    if (!in) bad_task(file, "cannot be read");
    r.json = json::parse(in);
    if (r.json.value("format", "") != "trails-segment-task" ||
        r.json.value("version", 0) != kTaskFileVersion) {
      bad_task(file,
               fmt::format("is not a Trails segment task file of version {}", kTaskFileVersion));
    }
    SegmentTask& t = r.task;
    t.iteration = r.json.at("iteration").get<std::int64_t>();
    t.walker = r.json.at("walker").get<std::int64_t>();
    t.seed = r.json.at("seed").get<std::uint64_t>();
    t.steps = r.json.at("steps").get<std::int64_t>();
    t.stride = r.json.at("stride").get<std::int64_t>();
    t.start.n_atoms = r.json.at("n_atoms").get<int>();
    t.start.spatial_dim = r.json.at("spatial_dim").get<int>();
    const json& start = r.json.at("start");
    t.start.positions = read_doubles(file, start.at("positions"));
    t.start.velocities = read_doubles(file, start.at("velocities"));
    t.start.box = read_doubles(file, start.at("box"));
  } catch (const json::exception& e) {
    bad_task(file, std::string("not a valid task file: ") + e.what());
  }
  return r;
}

void write_task_outputs(const SegmentResult& result, const json& task_json) {
  const json& out = task_json.at("outputs");
  const auto dim = static_cast<std::int64_t>(result.spatial_dim);
  const auto atoms = static_cast<std::int64_t>(result.n_atoms);
  core::write_npy(out.at("frames_npy").get<std::string>(), result.frames,
                  {result.n_frames, atoms, dim});
  if (!result.frame_boxes.empty()) {
    core::write_npy(out.at("frame_boxes").get<std::string>(), result.frame_boxes,
                    {result.n_frames, 3, 3});
  }
  const Configuration& f = result.final_state;
  core::write_npy(out.at("final_positions").get<std::string>(), f.positions, {atoms, dim});
  if (!f.velocities.empty()) {
    core::write_npy(out.at("final_velocities").get<std::string>(), f.velocities, {atoms, dim});
  }
  if (f.box.size() == 9) core::write_npy(out.at("final_box").get<std::string>(), f.box, {3, 3});
}

}  // namespace trails::engines::command
