#include "trails/engines/amber/amber_engine.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string_view>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/engines/amber/amber_ascii.h"
#include "trails/engines/amber/amber_netcdf.h"
#include "trails/engines/amber/mdin.h"
#include "trails/engines/build_engine.h"
#include "trails/engines/external/segment_program.h"
#include "trails/engines/external/walker_directory.h"
#include "trails/engines/external/walker_outputs.h"
#include "trails/engines/host.h"
#include "trails/structure/structure_file.h"

namespace trails::engines::amber {

namespace fs = std::filesystem;
namespace {

struct AmberWalker {
  const config::AmberSpec& spec;
  const EngineSystem& system;
  std::string executable;
  std::string mdin_template;
  bool periodic;
  std::optional<int> device;

  MdinValues mdin_values(const SegmentTask& task) const {
    return {
        task.steps, spec.dt,       spec.temperature, task.stride, periodic,
        spec.npt,   spec.pressure, spec.netcdf,      task.seed,   !task.start.velocities.empty()};
  }

  void write_inputs(const SegmentTask& task, const fs::path& dir) const {
    AmberState start;
    start.positions_nm = task.start.positions;
    start.velocities = task.start.velocities;
    if (task.start.box.size() == 9) {
      std::copy(task.start.box.begin(), task.start.box.end(), start.box.emplace().begin());
    }
    write_netcdf_restart(dir / "start.ncrst", start);
    const MdinValues v = mdin_values(task);
    const std::string source = spec.input_file ? spec.input_file->string() : "";
    std::ofstream(dir / "mdin") << (mdin_template.empty() ? builtin_mdin(v)
                                                          : render_mdin(mdin_template, v, source));
  }

  void read_outputs(const SegmentTask& task, const fs::path& dir, SegmentResult& result) const {
    const fs::path traj = dir / (spec.netcdf ? "traj.nc" : "traj.mdcrd");
    if (!fs::exists(traj)) throw core::InputError(traj.string() + ": Amber did not write it");
    AmberFrames frames = spec.netcdf ? read_netcdf_trajectory(traj, system.n_atoms)
                                     : read_mdcrd(traj, system.n_atoms, periodic);
    const std::int64_t expected = task.steps / task.stride;
    const std::int64_t skip =
        external::leading_frames(traj, static_cast<std::int64_t>(frames.n_frames), expected);
    const auto per_frame = static_cast<std::ptrdiff_t>(system.n_atoms) * 3;
    result.n_frames = expected;
    result.frames.assign(frames.positions_nm.begin() + skip * per_frame, frames.positions_nm.end());
    if (!frames.boxes.empty()) {
      result.frame_boxes.assign(frames.boxes.begin() + skip * 9, frames.boxes.end());
    }
    const AmberState end = read_netcdf_restart(dir / "end.ncrst", system.n_atoms);
    Configuration& f = result.final_state;
    f.n_atoms = system.n_atoms;
    f.spatial_dim = 3;
    f.positions = end.positions_nm;
    f.velocities = end.velocities;
    if (end.box) f.box.assign(end.box->begin(), end.box->end());
  }
};

class AmberInstance final : public EngineInstance {
 public:
  AmberInstance(config::AmberSpec spec, fs::path run_dir, EngineSystem system,
                std::string executable, std::string mdin_template, bool periodic,
                std::optional<int> device)
      : spec_(std::move(spec)),
        run_dir_(std::move(run_dir)),
        system_(std::move(system)),
        walker_{spec_, system_, std::move(executable), std::move(mdin_template), periodic, device},
        site_{"amber", host_name(), device, system_.n_atoms, 3} {}

  SegmentResult run(const SegmentTask& task) override {
    const auto armed_at = external::Clock::now();
    return external::run_walker(
        task, spec_.files, run_dir_, site_,
        [&](const fs::path& dir, SegmentResult& result) { run_in(dir, task, result, armed_at); });
  }

 private:
  void run_in(const fs::path& dir, const SegmentTask& task, SegmentResult& result,
              external::Clock::time_point armed_at) const {
    walker_.write_inputs(task, dir);
    external::SegmentProgram program{
        amber_command_line(spec_, walker_.executable), {}, external::time_limit(spec_.timeout_s)};
    if (walker_.device) {
      program.env.emplace_back("CUDA_VISIBLE_DEVICES", program_visible_devices(*walker_.device));
      // A GPU program's record names the device as the binding check reads it
      // (docs/execution.md, "Binding check"); another program's is the bare index.
      if (runs_on_gpu(walker_.executable)) {
        result.device = fmt::format("CUDA device {}", *walker_.device);
      }
    }
    result.startup_s = external::seconds_since(armed_at);
    const auto outcome = external::run_segment_program(program, dir);
    result.integrate_s = outcome.seconds;
    if (!outcome.ok) {
      throw core::EngineError(outcome.error + "\nthe last lines of mdout:\n" +
                              external::file_tail(dir / "mdout", 20));
    }
    const auto extract_at = external::Clock::now();
    walker_.read_outputs(task, dir, result);
    result.extract_s = external::seconds_since(extract_at);
  }

  config::AmberSpec spec_;
  fs::path run_dir_;
  EngineSystem system_;
  AmberWalker walker_;
  external::WalkerSite site_;
};

}  // namespace

std::string program_visible_devices(int device) {
  const char* inherited = std::getenv("CUDA_VISIBLE_DEVICES");
  std::string_view list = inherited == nullptr ? std::string_view() : inherited;
  for (int position = 0; !list.empty(); ++position) {
    const std::size_t comma = list.find(',');
    if (position == device) return std::string(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return std::to_string(device);
}

bool runs_on_gpu(const std::string& executable) {
  return fs::path(executable).filename().string().find("cuda") != std::string::npos;
}

std::vector<std::string> amber_command_line(const config::AmberSpec& spec,
                                            const std::string& executable) {
  std::vector<std::string> argv = {executable, "-O",
                                   "-i",       "mdin",
                                   "-o",       "mdout",
                                   "-p",       spec.top_file.string(),
                                   "-c",       "start.ncrst",
                                   "-r",       "end.ncrst",
                                   "-x",       spec.netcdf ? "traj.nc" : "traj.mdcrd",
                                   "-inf",     "mdinfo"};
  // pmemd.cuda refuses boxes smaller than twice the cut-off plus skin unless told (Trails-MD).
  if (runs_on_gpu(executable)) argv.emplace_back("-AllowSmallBox");
  argv.insert(argv.end(), spec.extra_args.begin(), spec.extra_args.end());
  return argv;
}

AmberEngine::AmberEngine(const config::AmberSpec& spec, const fs::path& run_dir)
    : spec_(spec), run_dir_(run_dir) {
  executable_ = external::find_program(spec_.executable, "engine.amber_executable").string();
  const Prmtop prmtop = read_prmtop(spec_.top_file);
  periodic_ = prmtop.periodic;
  const int n_atoms = prmtop.topology.n_atoms();
  const AmberState start = read_restart(spec_.conf_file, n_atoms);
  if (spec_.input_file) mdin_template_ = read_mdin_template(*spec_.input_file);
  // Render once now, so a bad template is an input error before any MD (Trails-MD preflight).
  const MdinValues probe{1,         spec_.dt,       spec_.temperature, 1, periodic_,
                         spec_.npt, spec_.pressure, spec_.netcdf,      0, false};
  if (!mdin_template_.empty()) (void)render_mdin(mdin_template_, probe, spec_.input_file->string());
  system_.molecular = true;
  system_.n_atoms = n_atoms;
  system_.spatial_dim = 3;
  system_.topology = std::make_shared<structure::Topology>(prmtop.topology);
  system_.reference_positions = start.positions_nm;
  if (start.box) system_.box.assign(start.box->begin(), start.box->end());
  system_.dt = spec_.dt;
  system_.time_unit = "ps";
  system_.length_unit = "nm";
  system_.prepared_dir = run_dir_ / "prepared";
  fs::create_directories(system_.prepared_dir);
  system_.topology_file = system_.prepared_dir / "amber-topology.pdb";
  structure::write_structure(system_.topology_file, prmtop.topology, start.positions_nm, start.box);
}

std::unique_ptr<EngineInstance> AmberEngine::make_instance(const Slot& slot) const {
  return std::make_unique<AmberInstance>(spec_, run_dir_, system_, executable_, mdin_template_,
                                         periodic_, slot.device);
}

Configuration AmberEngine::default_start() const {
  Configuration start;
  start.n_atoms = system_.n_atoms;
  start.spatial_dim = 3;
  start.positions = system_.reference_positions;
  start.box = system_.box;
  return start;
}

EngineCapabilities AmberEngine::capabilities() const {
  return {.continues_velocities = true, .uses_devices = runs_on_gpu(executable_)};
}

std::string AmberEngine::describe() const {
  return fmt::format("amber ({}, {} atoms, {}, dt {} ps, {} K, trajectory {})", executable_,
                     system_.n_atoms, periodic_ ? (spec_.npt ? "NPT" : "NVT, periodic") : "vacuum",
                     spec_.dt, spec_.temperature, spec_.netcdf ? "netcdf" : "ascii");
}

}  // namespace trails::engines::amber

namespace trails::engines {

// The engines registry builds this room's engine through it (build_engine.h).
std::unique_ptr<Engine> build_engine(const config::AmberSpec& spec,
                                     const std::filesystem::path& run_dir) {
  return std::make_unique<amber::AmberEngine>(spec, run_dir);
}

}  // namespace trails::engines
