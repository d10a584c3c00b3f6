// The built-in engine: one particle in an analytic potential. A segment is a pure function of
// its task (start, steps, stride, seed) and the engine config; the instance only keeps scratch
// buffers, so a warm instance gives bitwise the same result as a fresh one. The step loops do
// no heap allocation and draw normals in a fixed order (velocities first, then per step, per
// coordinate), which is the whole reproducibility contract of the built-in engine.
#include "trails/engines/builtin/builtin_engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/rng.h"
#include "trails/engines/build_engine.h"
#include "trails/engines/builtin/test_fault.h"
#include "trails/engines/host.h"

namespace trails::engines::builtin {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Frames are taken after steps stride, 2*stride, ...; a countdown avoids a division per step.
class FrameRecorder {
 public:
  FrameRecorder(std::int64_t stride, double* out) : stride_(stride), left_(stride), out_(out) {}
  void after_step(std::span<const double> x) {
    if (--left_ != 0) return;
    left_ = stride_;
    out_ = std::copy(x.begin(), x.end(), out_);
  }

 private:
  std::int64_t stride_;
  std::int64_t left_;
  double* out_;
};

// Each integrator returns 0 when every step stayed finite, else the first bad step (1-based).

// Euler–Maruyama for dx = -(1/gamma) grad V dt + sqrt(2 kT / gamma) dW.
std::int64_t integrate_overdamped(const Potential& potential, const config::BuiltinEngineConfig& c,
                                  core::Rng& rng, std::span<double> x, std::span<double> grad,
                                  std::int64_t steps, FrameRecorder& frames) {
  const double mobility_dt = c.dt / c.friction;
  const double noise = std::sqrt(2.0 * c.kT * c.dt / c.friction);
  const std::size_t n = x.size();
  for (std::int64_t step = 1; step <= steps; ++step) {
    potential.gradient(x, grad);
    bool finite = true;
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = x[i] - mobility_dt * grad[i] + noise * rng.normal();
      finite = finite && std::isfinite(x[i]);
    }
    if (!finite) return step;
    frames.after_step(x);
  }
  return 0;
}

// Langevin BAOAB (Leimkuhler–Matthews): B half kick, A half drift, O exact Ornstein–Uhlenbeck,
// A half drift, B half kick. The end-of-step gradient is reused by the next step's first kick,
// so each step costs one gradient evaluation.
std::int64_t integrate_baoab(const Potential& potential, const config::BuiltinEngineConfig& c,
                             core::Rng& rng, std::span<double> x, std::span<double> v,
                             std::span<double> grad, std::int64_t steps, FrameRecorder& frames) {
  const double half_dt = 0.5 * c.dt;
  const double kick = half_dt / c.mass;
  const double c1 = std::exp(-c.friction * c.dt);
  const double c2 = std::sqrt((1.0 - c1 * c1) * c.kT / c.mass);
  const std::size_t n = x.size();
  potential.gradient(x, grad);
  for (std::int64_t step = 1; step <= steps; ++step) {
    for (std::size_t i = 0; i < n; ++i) {
      // The coordinates are independent between gradient evaluations, so B-A-O-A per
      // coordinate equals the textbook whole-vector sequence (same noise order too).
      double vi = v[i] - kick * grad[i];
      double xi = x[i] + half_dt * vi;
      vi = c1 * vi + c2 * rng.normal();
      x[i] = xi + half_dt * vi;
      v[i] = vi;
    }
    potential.gradient(x, grad);
    bool finite = true;
    for (std::size_t i = 0; i < n; ++i) {
      v[i] -= kick * grad[i];
      finite = finite && std::isfinite(x[i]) && std::isfinite(v[i]);
    }
    if (!finite) return step;
    frames.after_step(x);
  }
  return 0;
}

// Trails-MD's test walk: x <- max(0, x - 0.30 + N(0,1)); reflecting at 0, cannot diverge.
void integrate_biased_walk(core::Rng& rng, std::span<double> x, std::int64_t steps,
                           FrameRecorder& frames) {
  constexpr double kDrift = 0.30;
  for (std::int64_t step = 1; step <= steps; ++step) {
    x[0] = std::max(0.0, x[0] - kDrift + rng.normal());
    frames.after_step(x);
  }
}

class BuiltinInstance final : public EngineInstance {
 public:
  BuiltinInstance(const config::BuiltinEngineConfig& config,
                  std::shared_ptr<const Potential> potential)
      : config_(config), potential_(std::move(potential)), host_(host_name()) {}

  SegmentResult run(const SegmentTask& task) override;

 private:
  std::string validate(const SegmentTask& task) const;
  std::string walker_label(const SegmentTask& task) const {
    return fmt::format("walker {} of iteration {}", task.walker, task.iteration);
  }

  config::BuiltinEngineConfig config_;
  std::shared_ptr<const Potential> potential_;
  std::string host_;
  // Scratch reused across segments; fully overwritten on every re-arm.
  std::vector<double> x_, v_, grad_;
};

std::string BuiltinInstance::validate(const SegmentTask& task) const {
  const auto dim = static_cast<std::size_t>(potential_->dim());
  if (task.steps <= 0) return fmt::format("steps must be > 0 (got {})", task.steps);
  if (task.stride <= 0) return fmt::format("stride must be > 0 (got {})", task.stride);
  if (task.start.positions.size() != dim) {
    return fmt::format("start point has {} coordinates but the {} potential is {}-dimensional",
                       task.start.positions.size(), potential_->name(), dim);
  }
  for (double xi : task.start.positions) {
    if (!std::isfinite(xi)) return "start point has a non-finite coordinate";
  }
  const bool langevin =
      potential_->has_energy() && config_.integrator == config::Integrator::Langevin;
  if (langevin && !task.start.velocities.empty()) {
    if (task.start.velocities.size() != dim) {
      return fmt::format(
          "start velocities have {} components but the {} potential is "
          "{}-dimensional",
          task.start.velocities.size(), potential_->name(), dim);
    }
    for (double vi : task.start.velocities) {
      if (!std::isfinite(vi)) return "start velocities have a non-finite component";
    }
  }
  return {};
}

SegmentResult BuiltinInstance::run(const SegmentTask& task) {
  const auto armed_at = Clock::now();
  SegmentResult result;
  result.task_id = task.task_id;
  result.platform = "builtin";
  result.host = host_;
  result.n_atoms = 1;
  result.spatial_dim = potential_->dim();

  if (std::string problem = validate(task); !problem.empty()) {
    result.error = walker_label(task) + ": " + problem;
    result.startup_s = seconds_since(armed_at);
    return result;
  }

  inject_test_fault(task);  // tests only: TRAILS_TEST_FAULT (test_fault.h)

  // Re-arm: every piece of state comes from the task; nothing survives from the last segment.
  const auto dim = static_cast<std::size_t>(potential_->dim());
  x_.assign(task.start.positions.begin(), task.start.positions.end());
  grad_.assign(dim, 0.0);
  v_.assign(dim, 0.0);
  result.n_frames = task.steps / task.stride;
  result.frames.assign(static_cast<std::size_t>(result.n_frames) * dim, 0.0);
  FrameRecorder frames(task.stride, result.frames.data());
  core::Rng rng(task.seed);
  if (config_.synthetic_startup_ms > 0.0) {  // a costly re-arm of known length (trails advise)
    std::this_thread::sleep_for(
        std::chrono::duration<double, std::milli>(config_.synthetic_startup_ms));
  }
  result.startup_s = seconds_since(armed_at);

  const auto started_at = Clock::now();
  std::int64_t bad_step = 0;
  bool has_velocities = false;
  if (!potential_->has_energy()) {
    integrate_biased_walk(rng, x_, task.steps, frames);
  } else if (config_.integrator == config::Integrator::Overdamped) {
    bad_step = integrate_overdamped(*potential_, config_, rng, x_, grad_, task.steps, frames);
  } else {
    has_velocities = true;
    if (!task.start.velocities.empty()) {
      v_.assign(task.start.velocities.begin(), task.start.velocities.end());
    } else {
      // Maxwell–Boltzmann draws come first from the seed's stream (documented order).
      const double sigma = std::sqrt(config_.kT / config_.mass);
      for (double& vi : v_) vi = sigma * rng.normal();
    }
    bad_step = integrate_baoab(*potential_, config_, rng, x_, v_, grad_, task.steps, frames);
  }
  if (config_.synthetic_cost_ms > 0.0) {
    std::this_thread::sleep_for(
        std::chrono::duration<double, std::milli>(config_.synthetic_cost_ms));
  }
  result.integrate_s = seconds_since(started_at);

  if (bad_step != 0) {
    result.error = fmt::format(
        "{}: coordinates became non-finite at step {}; reduce engine.dt (currently {}) or check "
        "the start point",
        walker_label(task), bad_step, config_.dt);
    result.n_frames = 0;
    result.frames.clear();
    return result;
  }
  result.status = SegmentStatus::Ok;
  result.final_state.n_atoms = 1;
  result.final_state.spatial_dim = static_cast<int>(dim);
  result.final_state.positions = x_;
  if (has_velocities) result.final_state.velocities = v_;
  return result;
}

void require_positive(double value, const char* key) {
  if (!(std::isfinite(value) && value > 0.0)) {
    throw core::ConfigError(fmt::format("{} must be a finite number > 0 (got {})", key, value));
  }
}

}  // namespace

BuiltinEngine::BuiltinEngine(const config::BuiltinSpec& config)
    : config_(config), potential_(make_potential(config)) {
  require_positive(config_.kT, "engine.kT");
  require_positive(config_.dt, "engine.dt");
  require_positive(config_.friction, "engine.friction");
  require_positive(config_.mass, "engine.mass");
  if (!(std::isfinite(config_.synthetic_cost_ms) && config_.synthetic_cost_ms >= 0.0)) {
    throw core::ConfigError(
        fmt::format("engine.synthetic_cost_ms must be >= 0 (got {})", config_.synthetic_cost_ms));
  }
  if (!(std::isfinite(config_.synthetic_startup_ms) && config_.synthetic_startup_ms >= 0.0)) {
    throw core::ConfigError(fmt::format("engine.synthetic_startup_ms must be >= 0 (got {})",
                                        config_.synthetic_startup_ms));
  }
  system_.n_atoms = 1;
  system_.spatial_dim = potential_->dim();
  system_.reference_positions = potential_->default_start();
  system_.dt = config_.dt;
  system_.time_unit = "reduced";
  system_.length_unit = "reduced";
}

EngineCapabilities BuiltinEngine::capabilities() const {
  // Overdamped dynamics has no velocities; Langevin BAOAB continues a task's start velocities.
  return {.continues_velocities = config_.integrator == config::Integrator::Langevin,
          .uses_devices = false};
}

std::string BuiltinEngine::describe() const {
  return fmt::format(
      "builtin ({}, {} integrator, kT {}, dt {})", potential_->name(),
      config_.integrator == config::Integrator::Overdamped ? "overdamped" : "langevin", config_.kT,
      config_.dt);
}

std::unique_ptr<EngineInstance> BuiltinEngine::make_instance(const Slot& /*slot*/) const {
  return std::make_unique<BuiltinInstance>(config_, potential_);
}

Configuration BuiltinEngine::default_start() const {
  Configuration start;
  start.n_atoms = 1;
  start.spatial_dim = potential_->dim();
  start.positions = system_.reference_positions;
  return start;
}

}  // namespace trails::engines::builtin

namespace trails::engines {

// The engines registry builds this room's engine through it (build_engine.h).
std::unique_ptr<Engine> build_engine(const config::BuiltinSpec& spec,
                                     const std::filesystem::path&) {
  return std::make_unique<builtin::BuiltinEngine>(spec);
}

}  // namespace trails::engines
