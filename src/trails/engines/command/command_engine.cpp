#include "trails/engines/command/command_engine.h"

#include <chrono>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/engines/build_engine.h"
#include "trails/engines/command/task_file.h"
#include "trails/engines/external/segment_program.h"
#include "trails/engines/external/walker_directory.h"
#include "trails/engines/external/walker_outputs.h"
#include "trails/engines/host.h"
#include "trails/structure/structure_file.h"

namespace trails::engines::command {

namespace fs = std::filesystem;
namespace {

// The frames file the program wrote: exactly one of the allowed names.
fs::path written_frames(const nlohmann::json& outputs) {
  std::vector<fs::path> found;
  std::string names;
  for (const char* key : {"frames_npy", "frames_xtc", "frames_dcd"}) {
    const auto& p = outputs.at(key);
    if (p.is_null()) continue;
    names += (names.empty() ? "" : ", ") + fs::path(p.get<std::string>()).filename().string();
    if (fs::exists(p.get<std::string>())) found.emplace_back(p.get<std::string>());
  }
  if (found.size() == 1) return found.front();
  throw core::InputError(
      found.empty() ? "the program wrote no frames (expected one of " + names + ")"
                    : "the program wrote frames in more than one file; write one of " + names);
}

class CommandInstance final : public EngineInstance {
 public:
  CommandInstance(const config::CommandSpec& spec, fs::path run_dir, const EngineSystem& system,
                  std::optional<int> device)
      : spec_(spec),
        run_dir_(std::move(run_dir)),
        system_(system),
        device_(device),
        site_{"command", host_name(), device, system.n_atoms, system.spatial_dim} {}

  SegmentResult run(const SegmentTask& task) override {
    const auto armed_at = external::Clock::now();
    return external::run_walker(
        task, spec_.files, run_dir_, site_,
        [&](const fs::path& dir, SegmentResult& result) { run_in(dir, task, result, armed_at); });
  }

 private:
  void run_in(const fs::path& dir, const SegmentTask& task, SegmentResult& result,
              external::Clock::time_point armed_at) const {
    TaskSystem s{system_.n_atoms,   system_.spatial_dim,    system_.molecular,
                 spec_.dt,          system_.time_unit,      system_.length_unit,
                 spec_.temperature, spec_.pressure,         spec_.npt,
                 device_,           system_.topology.get(), spec_.conf_file};
    const nlohmann::json task_json = write_task_files(task, s, dir);
    const external::SegmentProgram program{spec_.command,
                                           task_environment(task_json, dir / "task.json"),
                                           external::time_limit(spec_.timeout_s)};
    result.startup_s = external::seconds_since(armed_at);
    const external::ProgramOutcome outcome = external::run_segment_program(program, dir);
    result.integrate_s = outcome.seconds;
    if (!outcome.ok) throw core::EngineError(outcome.error);
    const auto extract_at = external::Clock::now();
    read_outputs(task, task_json.at("outputs"), result);
    result.extract_s = external::seconds_since(extract_at);
  }

  void read_outputs(const SegmentTask& task, const nlohmann::json& outputs,
                    SegmentResult& result) const {
    const std::int64_t expected = task.steps / task.stride;
    external::WalkerFrames frames = external::read_walker_frames(
        written_frames(outputs), system_.n_atoms, system_.spatial_dim, expected);
    const fs::path boxes = outputs.at("frame_boxes").get<std::string>();
    if (frames.boxes.empty() && fs::exists(boxes)) {
      frames.boxes = external::read_walker_array(boxes, static_cast<std::size_t>(expected) * 9);
    }
    result.n_frames = frames.n_frames;
    result.frames = std::move(frames.positions);
    result.frame_boxes = std::move(frames.boxes);
    const auto n_values = static_cast<std::size_t>(system_.n_atoms) * system_.spatial_dim;
    Configuration& f = result.final_state;
    f.n_atoms = system_.n_atoms;
    f.spatial_dim = system_.spatial_dim;
    f.positions =
        external::read_walker_array(outputs.at("final_positions").get<std::string>(), n_values);
    const fs::path velocities = outputs.at("final_velocities").get<std::string>();
    if (fs::exists(velocities)) f.velocities = external::read_walker_array(velocities, n_values);
    const fs::path box = outputs.at("final_box").get<std::string>();
    if (fs::exists(box)) f.box = external::read_walker_array(box, 9);
  }

  config::CommandSpec spec_;
  fs::path run_dir_;
  EngineSystem system_;  // a copy: the instance never refers back to its engine
  std::optional<int> device_;
  external::WalkerSite site_;
};

}  // namespace

CommandEngine::CommandEngine(const config::CommandSpec& spec, const fs::path& run_dir)
    : spec_(spec), run_dir_(run_dir) {
  if (spec_.command.empty()) throw core::ConfigError("engine.command: no program is given");
  external::find_program(spec_.command.front(), "engine.command");
  system_.dt = spec_.dt;
  if (!spec_.conf_file) {
    if (spec_.start.empty()) throw core::ConfigError("system.start: the point system needs one");
    system_.n_atoms = 1;
    system_.spatial_dim = static_cast<int>(spec_.start.size());
    system_.reference_positions = spec_.start;
    system_.time_unit = "reduced";
    system_.length_unit = "reduced";
    return;
  }
  const structure::StructureFile structure = structure::read_structure(*spec_.conf_file);
  system_.molecular = true;
  system_.n_atoms = structure.topology.n_atoms();
  system_.spatial_dim = 3;
  system_.topology = std::make_shared<structure::Topology>(structure.topology);
  system_.reference_positions = structure.frames.front();
  if (structure.boxes.front()) {
    system_.box.assign(structure.boxes.front()->begin(), structure.boxes.front()->end());
  }
  system_.time_unit = "ps";
  system_.length_unit = "nm";
  system_.topology_file = *spec_.conf_file;
  if (structure::structure_format(*spec_.conf_file) == structure::StructureFormat::Gro) {
    // Exports and project files read a PDB topology (docs/engines.md).
    system_.prepared_dir = run_dir_ / "prepared";
    fs::create_directories(system_.prepared_dir);
    system_.topology_file = system_.prepared_dir / "command-topology.pdb";
    structure::write_structure(system_.topology_file, structure.topology,
                               system_.reference_positions, structure.boxes.front());
  }
}

std::unique_ptr<EngineInstance> CommandEngine::make_instance(const Slot& slot) const {
  return std::make_unique<CommandInstance>(spec_, run_dir_, system_, slot.device);
}

Configuration CommandEngine::default_start() const {
  Configuration start;
  start.n_atoms = system_.n_atoms;
  start.spatial_dim = system_.spatial_dim;
  start.positions = system_.reference_positions;
  start.box = system_.box;
  return start;
}

EngineCapabilities CommandEngine::capabilities() const {
  // Start velocities, when a task has them, are handed to the program (start.velocities).
  return {.continues_velocities = true, .uses_devices = false};
}

std::string CommandEngine::describe() const {
  std::string argv;
  for (const auto& a : spec_.command) argv += (argv.empty() ? "" : " ") + a;
  return fmt::format("command ({}; {} system, {} atom{}, dt {} {})", argv,
                     system_.molecular ? "molecular" : "point", system_.n_atoms,
                     system_.n_atoms == 1 ? "" : "s", system_.dt, system_.time_unit);
}

}  // namespace trails::engines::command

namespace trails::engines {

// The engines registry builds this room's engine through it (build_engine.h).
std::unique_ptr<Engine> build_engine(const config::CommandSpec& spec,
                                     const std::filesystem::path& run_dir) {
  return std::make_unique<command::CommandEngine>(spec, run_dir);
}

}  // namespace trails::engines
