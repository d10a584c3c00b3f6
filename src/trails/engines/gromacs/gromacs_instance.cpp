// One GROMACS walker (gromacs_instance.h): patch the run input, run mdrun in the walker's
// directory (external::run_walker: scratch, and the one rule for kept files), read the TRR back.
// Timings: startup_s is the patch and write, integrate_s the whole mdrun process (its own
// start-up of about 0.2 s included), extract_s the TRR read.
#include "trails/engines/gromacs/gromacs_instance.h"

#include <chrono>
#include <fstream>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/subprocess.h"
#include "trails/engines/external/segment_program.h"
#include "trails/engines/external/walker_directory.h"
#include "trails/engines/gromacs/md_log.h"
#include "trails/engines/gromacs/mdrun_command.h"
#include "trails/engines/gromacs/tpr_patch.h"
#include "trails/engines/gromacs/velocities.h"
#include "trails/engines/host.h"
#include "trails/trajio/trr.h"

namespace trails::engines::gromacs {
namespace {

namespace fs = std::filesystem;
using external::Clock;
using external::seconds_since;

constexpr std::size_t kLogTailLines = 30;

// The walker's failure in words: mdrun's status, the end of md.log without its citations, and
// the end of mdrun's stderr (where GROMACS prints the fatal error of a refused input).
std::string mdrun_failure(const std::vector<std::string>& argv, const core::ProcessResult& p,
                          const std::optional<std::chrono::milliseconds>& limit,
                          const fs::path& dir) {
  const std::string log =
      external::tail_lines(without_citations(external::read_log(dir / "md.log")), kLogTailLines);
  std::string msg = "gmx mdrun " + p.status.describe(limit);
  if (!log.empty()) msg += "; the end of md.log:\n" + log;
  if (!p.stderr_tail.empty()) {
    msg += (log.empty() ? "; " : "\n") + core::describe_failure(argv, p, limit);
  }
  return msg;
}

// Frames after t = 0 into r; the last frame is the final state. Throws for a short trajectory.
void take_frames(const trajio::TrrTrajectory& t, const SegmentTask& task, SegmentResult& r) {
  const std::int64_t expected = task.steps / task.stride;
  std::int64_t n = 0;
  for (const auto& f : t.frames) n += f.step > 0 ? 1 : 0;
  const trajio::TrrFrame& last = t.frames.back();
  if (n != expected || last.step != task.steps || last.velocities.empty()) {
    throw core::EngineError(fmt::format(
        "traj.trr has {} frames after t = 0 (last at step {}), expected {} ending at step {} "
        "with velocities",
        n, last.step, expected, task.steps));
  }
  r.n_frames = expected;
  r.frames.reserve(static_cast<std::size_t>(expected) * last.positions.size());
  for (const auto& f : t.frames) {
    if (f.step <= 0) continue;
    r.frames.insert(r.frames.end(), f.positions.begin(), f.positions.end());
    if (f.box) r.frame_boxes.insert(r.frame_boxes.end(), f.box->begin(), f.box->end());
  }
  if (r.frame_boxes.size() != static_cast<std::size_t>(expected) * 9) r.frame_boxes.clear();
  r.final_state.n_atoms = t.n_atoms;
  r.final_state.spatial_dim = 3;
  r.final_state.positions = last.positions;
  r.final_state.velocities = last.velocities;
  if (last.box) r.final_state.box.assign(last.box->begin(), last.box->end());
}

}  // namespace

GromacsInstance::GromacsInstance(const config::GromacsSpec& spec,
                                 std::shared_ptr<const PreparedRun> prepared,
                                 std::shared_ptr<const std::string> tpr, const Slot& slot)
    : spec_(spec),
      prepared_(std::move(prepared)),
      tpr_(std::move(tpr)),
      slot_(slot),
      site_{"gromacs", host_name(), slot.device, prepared_->layout.n_atoms, 3} {}

SegmentResult GromacsInstance::run(const SegmentTask& task) {
  return external::run_walker(task, spec_.files, prepared_->run_dir, site_,
                              [&](const fs::path& dir, SegmentResult& r) { run_in(task, dir, r); });
}

void GromacsInstance::run_in(const SegmentTask& task, const fs::path& dir, SegmentResult& r) const {
  r.device = device_record(spec_.params, slot_);
  r.visible_devices = visible_devices();
  const auto t0 = Clock::now();
  if (task.stride <= 0 || task.steps <= 0 || task.steps % task.stride != 0) {
    throw core::EngineError(fmt::format(
        "steps {} is not a positive multiple of stride {}: the GROMACS engine takes the final "
        "state from the last TRR frame",
        task.steps, task.stride));
  }
  const PreparedRun& p = *prepared_;
  WalkerRunInput in;
  in.positions = task.start.positions.empty() ? &p.positions : &task.start.positions;
  const std::vector<double> drawn = task.start.velocities.empty()
                                        ? maxwell_boltzmann(p.masses, spec_.temperature, task.seed)
                                        : std::vector<double>();
  in.velocities = task.start.velocities.empty() ? &drawn : &task.start.velocities;
  const std::vector<double>& box = task.start.box.size() == 9 ? task.start.box : p.box;
  std::copy(box.begin(), box.end(), in.box.begin());
  in.ld_seed = ld_seed_of(task.seed);
  in.stride = static_cast<std::int32_t>(task.stride);
  {
    std::ofstream out(dir / "walker.tpr", std::ios::binary);
    out << patch_tpr(*tpr_, p.layout, in);
    if (!out.flush()) throw core::InputError((dir / "walker.tpr").string() + ": cannot write");
  }
  r.startup_s = seconds_since(t0);

  const auto t1 = Clock::now();
  const std::vector<std::string> argv = mdrun_command(spec_.params, slot_, task.steps);
  core::ProcessOptions options;
  options.set_env = gmx_environment(spec_);
  options.working_directory = dir;
  options.stdout_limit = 1 << 16;
  options.timeout = external::time_limit(spec_.timeout_s);
  options.interruptible = true;  // a stop signal ends mdrun; the walker is re-run on --resume
  options.end_descendants = true;
  const core::ProcessResult proc = core::run_process(argv, options);
  r.integrate_s = seconds_since(t1);
  if (!proc.status.ok()) throw core::EngineError(mdrun_failure(argv, proc, options.timeout, dir));
  const auto t2 = Clock::now();
  take_frames(trajio::read_trr(dir / "traj.trr", r.n_atoms), task, r);
  r.extract_s = seconds_since(t2);
}

}  // namespace trails::engines::gromacs
