// Running dynamics on an OpenMM instance's armed Context (openmm_instance.h): one walker's
// segment (task validation, production with in-memory frames every stride steps, and the
// recovery of a failed exploration walker) and the pre-equilibration of the start structure.
#include <chrono>
#include <cmath>
#include <mutex>
#include <span>

#include <OpenMM.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "trails/core/error.h"
#include "trails/core/signals.h"
#include "trails/engines/openmm/context_table.h"
#include "trails/engines/openmm/device_errors.h"
#include "trails/engines/openmm/openmm_engine.h"
#include "trails/engines/openmm/openmm_instance.h"

namespace trails::engines::openmm::detail {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The Reference platform draws its Gaussian noise from one process-wide generator, re-seeded
// whenever a Reference Context is (re)initialized. Two Reference walkers running at once would
// interleave draws, so Reference segments run one at a time (it is the testing platform).
std::mutex& reference_rng_mutex() {
  static std::mutex m;
  return m;
}

// Appends n Vec3 as doubles; false if any is not finite.
bool append_finite(const std::vector<OpenMM::Vec3>& v, std::vector<double>& out) {
  bool finite = true;
  for (const auto& p : v) {
    for (int k = 0; k < 3; ++k) {
      out.push_back(p[k]);
      finite = finite && std::isfinite(p[k]);
    }
  }
  return finite;
}

// "" when the frame's bonds are all within their limit, else why the walker fails
// (docs/reliability.md, "Exploded frames"). box: the frame's 9 values, or empty.
std::string check_bonds(const std::vector<Bond>& bonds, std::span<const double> positions,
                        std::span<const double> box, std::int64_t step) {
  if (bonds.empty()) return {};
  if (const auto broken = first_broken_bond(bonds, positions, box)) return describe(*broken, step);
  return {};
}

void append_box(const OpenMM::State& state, std::vector<double>& out) {
  OpenMM::Vec3 a, b, c;
  state.getPeriodicBoxVectors(a, b, c);
  for (const OpenMM::Vec3* v : {&a, &b, &c}) {
    for (int k = 0; k < 3; ++k) out.push_back((*v)[k]);
  }
}

}  // namespace

std::unique_lock<std::mutex> OpenMMInstance::maybe_lock() {
  if (platform_ == "Reference") return std::unique_lock<std::mutex>(reference_rng_mutex());
  return {};
}

Configuration OpenMMInstance::equilibrate(const Configuration& start, std::uint64_t seed) {
  std::unique_lock<std::mutex> lock = maybe_lock();
  arm(start, seed, /*minimize=*/true);
  auto table = shared_context_table(platform_);
  context_->getIntegrator().step(config_.equilibration_steps);
  const OpenMM::State s = context_->getState(OpenMM::State::Positions);
  Configuration out;
  out.n_atoms = n_atoms_;
  out.spatial_dim = 3;
  if (!append_finite(s.getPositions(), out.positions)) {
    throw core::EngineError(
        "engine.equilibrate: the pre-equilibration of the start structure blew up (non-finite "
        "coordinates); check the structure and engine.dt");
  }
  if (system_->usesPeriodicBoundaryConditions()) append_box(s, out.box);
  if (const std::string broken = check_bonds(bonds_, out.positions, out.box, 0); !broken.empty()) {
    throw core::EngineError(
        "engine.equilibrate: the pre-equilibration of the start structure "
        "blew up (" +
        broken + "); check the structure and engine.dt");
  }
  return out;
}

// Failure recovery (compat:openmm-failure-recovery): from the minimised start, optionally
// equilibrate, then fresh velocities and a clean clock for the re-run of production.
void OpenMMInstance::recover(const Configuration& start, std::uint64_t seed) {
  arm(start, seed, /*minimize=*/true);
  if (config_.equilibrate) {
    auto table = shared_context_table(platform_);
    integrator_->step(config_.equilibration_steps);
    context_->setVelocitiesToTemperature(config_.temperature, openmm_seed(seed));
    context_->setTime(0.0);
    context_->setStepCount(0);
  }
}

std::string OpenMMInstance::validate(const SegmentTask& task) const {
  const auto n = 3 * static_cast<std::size_t>(n_atoms_);
  if (task.steps <= 0) return fmt::format("steps must be > 0 (got {})", task.steps);
  if (task.stride <= 0) return fmt::format("stride must be > 0 (got {})", task.stride);
  if (task.start.positions.size() != n) {
    return fmt::format("start configuration has {} coordinates but the system has {} atoms ({})",
                       task.start.positions.size(), n_atoms_, n);
  }
  if (!task.start.velocities.empty() && task.start.velocities.size() != n) {
    return fmt::format("start velocities have {} components, expected {}",
                       task.start.velocities.size(), n);
  }
  if (!task.start.box.empty() && task.start.box.size() != 9) {
    return fmt::format("start box has {} values, expected 9", task.start.box.size());
  }
  for (double x : task.start.positions) {
    if (!std::isfinite(x)) return "start configuration has a non-finite coordinate";
  }
  return {};
}

// One production attempt from an armed Context. Returns "" or why the walker failed.
std::string OpenMMInstance::integrate(const SegmentTask& task, SegmentResult& result) {
  const bool periodic = system_->usesPeriodicBoundaryConditions();
  const std::int64_t n_frames = task.steps / task.stride;
  result.frames.clear();
  result.frame_boxes.clear();
  result.frames.reserve(static_cast<std::size_t>(n_frames * 3 * n_atoms_));
  if (periodic) result.frame_boxes.reserve(static_cast<std::size_t>(n_frames * 9));
  for (std::int64_t f = 1; f <= n_frames; ++f) {
    core::throw_if_stop_requested();  // a stop signal ends the walker within one frame
    auto table = shared_context_table(platform_);
    const auto t_step = Clock::now();
    integrator_->step(static_cast<int>(task.stride));
    const auto t_extract = Clock::now();
    result.integrate_s += std::chrono::duration<double>(t_extract - t_step).count();
    const OpenMM::State s = context_->getState(OpenMM::State::Positions);
    const std::size_t at = result.frames.size();
    const bool finite = append_finite(s.getPositions(), result.frames);
    if (periodic) append_box(s, result.frame_boxes);
    result.extract_s += seconds_since(t_extract);
    if (!finite) return fmt::format("coordinates became non-finite by step {}", f * task.stride);
    // Finite but blown apart fails the walker just the same (docs/reliability.md).
    const std::span<const double> frame(result.frames.data() + at, result.frames.size() - at);
    const std::span<const double> box =
        periodic ? std::span<const double>(result.frame_boxes).last(9) : std::span<const double>();
    if (std::string broken = check_bonds(bonds_, frame, box, f * task.stride); !broken.empty()) {
      return broken;
    }
  }
  if (const std::int64_t rest = task.steps - n_frames * task.stride; rest > 0) {
    auto table = shared_context_table(platform_);
    const auto t_step = Clock::now();
    integrator_->step(static_cast<int>(rest));
    result.integrate_s += seconds_since(t_step);
  }
  auto table = shared_context_table(platform_);
  const auto t_final = Clock::now();
  const OpenMM::State s = context_->getState(OpenMM::State::Positions | OpenMM::State::Velocities |
                                             OpenMM::State::Energy);
  Configuration& out = result.final_state;
  out = Configuration{};
  out.n_atoms = n_atoms_;
  out.spatial_dim = 3;
  const bool finite = append_finite(s.getPositions(), out.positions) &&
                      append_finite(s.getVelocities(), out.velocities);
  if (periodic) append_box(s, out.box);
  result.extract_s += seconds_since(t_final);
  if (!finite) return fmt::format("coordinates became non-finite by step {}", task.steps);
  if (std::string broken = check_bonds(bonds_, out.positions, out.box, task.steps);
      !broken.empty()) {
    return broken;
  }
  if (!std::isfinite(s.getPotentialEnergy())) {
    return fmt::format("potential energy is not finite at step {}", task.steps);
  }
  result.n_frames = n_frames;
  return {};
}

SegmentResult OpenMMInstance::run(const SegmentTask& task) {
  SegmentResult result;
  result.task_id = task.task_id;
  result.n_atoms = n_atoms_;
  result.spatial_dim = 3;
  result.host = host_;
  result.visible_devices = visible_;
  const std::string who = fmt::format("walker {} of iteration {}", task.walker, task.iteration);
  if (std::string problem = validate(task); !problem.empty()) {
    result.error = who + ": " + problem;
    return result;
  }
  std::unique_lock<std::mutex> lock = maybe_lock();
  std::string failure;
  const auto attempt = [&](bool recovering) {
    result.integrate_s = result.extract_s = 0.0;
    try {
      const auto t_arm = Clock::now();
      if (recovering) {
        recover(task.start, task.seed);
      } else {
        arm(task.start, task.seed, /*minimize=*/false);
      }
      result.startup_s += seconds_since(t_arm);
      failure = integrate(task, result);
    } catch (const OpenMM::OpenMMException& e) {
      failure = e.what();
    } catch (const core::Interrupted&) {
      throw;  // a stop, not a failure: no recovery attempt (exec::run_guarded)
    } catch (const std::exception& e) {
      failure = e.what();
    }
    return failure.empty();
  };
  bool ok = attempt(false);
  // Exploration walkers (fresh velocities) are recovered by minimising and re-running, as in
  // Trails-MD; a walker that inherited velocities (kinetics) is not: its dynamics would change.
  // Nor is one whose device ran out of memory or resources: minimising cannot help.
  if (!ok && task.start.velocities.empty() && device_resource_problem(failure).empty()) {
    const std::string first = failure;
    ok = attempt(true);
    if (ok) {
      result.recovered = true;
      spdlog::warn("{}: {}; recovered by energy minimisation and a re-run", who, first);
    } else {
      failure = first + "; the re-run after energy minimisation failed too: " + failure;
    }
  }
  result.platform = platform_;
  result.device = device_;
  if (!ok) {
    if (const std::string device = device_resource_problem(failure); !device.empty()) {
      result.error = fmt::format("{}: OpenMM: {}; {}", who, failure, device);
    } else {
      result.error = fmt::format(
          "{}: OpenMM: {}; reduce engine.dt (currently {} ps) or check the "
          "start structure",
          who, failure, config_.dt);
    }
    result.frames.clear();
    result.frame_boxes.clear();
    result.n_frames = 0;
    return result;
  }
  result.status = SegmentStatus::Ok;
  return result;
}

}  // namespace trails::engines::openmm::detail
