// The recommendations of `trails advise` (advise_model.h; docs/advise.md, "What it
// recommends"): each candidate change is priced with the fitted model against the current
// settings, and listed only when the model expects at least options.min_speedup.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "trails/analysis/advise_model.h"
#include "trails/core/error.h"

namespace trails::analysis {
namespace {

// The configuration loader refuses integers above this (config/convert.cpp).
constexpr std::int64_t kMaxConfigInt = std::numeric_limits<int>::max();

// The smallest multiple of `stride` at or above x with at most two significant digits in
// units of stride, so that 2 712 345.6 steps at stride 10 reads 2 800 000.
std::int64_t round_walker_length(double x, std::int64_t stride) {
  // The relative slack keeps 9000.000000000002 (rounding error of an exact 9000) at 9000.
  const double units = std::ceil(x / static_cast<double>(stride) * (1.0 - 1e-12));
  const double scale = units >= 100.0 ? std::pow(10.0, std::floor(std::log10(units)) - 1.0) : 1.0;
  const double rounded =
      std::ceil(units / scale * (1.0 - 1e-12)) * scale * static_cast<double>(stride);
  const auto cap = kMaxConfigInt / stride * stride;
  return rounded >= static_cast<double>(cap) ? cap : static_cast<std::int64_t>(rounded);
}

double speedup_of(const ModelFit& m, std::int64_t walkers, std::int64_t steps, int slots) {
  const double now = model_steps_per_s(m, m.walkers, m.steps, m.slots);
  return now > 0.0 ? model_steps_per_s(m, walkers, steps, slots) / now : 1.0;
}

std::string now_and_after(const ModelFit& m, std::int64_t walkers, std::int64_t steps, int slots) {
  return fmt::format("now {}; after {}", describe_model(m, m.walkers, m.steps, m.slots),
                     describe_model(m, walkers, steps, slots));
}

// spawning.step: walkers long enough that start-up is at most the target share of their time.
void walker_length(const ModelFit& m, const ExecutionSetup& setup, const AdviceOptions& o,
                   Advice& advice) {
  const double f = startup_fraction(m, m.steps);
  if (f <= o.startup_target || m.step_s <= 0.0 || m.startup_s <= 0.0) return;
  const double needed = m.startup_s * (1.0 - o.startup_target) / (o.startup_target * m.step_s);
  const std::int64_t steps = round_walker_length(needed, std::max<std::int64_t>(setup.stride, 1));
  if (steps <= m.steps) return;
  Recommendation r;
  r.key = "spawning.step";
  r.value = steps;
  r.current = m.steps;
  r.speedup = speedup_of(m, m.walkers, steps, m.slots);
  r.reason = fmt::format(
      "start-up is {:.1f} % of a walker's time ({} of {} + {} steps × {}); at {} steps it is "
      "{:.1f} % (target {:.0f} %)",
      100.0 * f, format_duration(m.startup_s), format_duration(m.startup_s), m.steps,
      format_duration(m.step_s), steps, 100.0 * startup_fraction(m, steps),
      100.0 * o.startup_target);
  r.arithmetic = now_and_after(m, m.walkers, steps, m.slots);
  r.note = fmt::format(
      "the same MD budget then takes {:.6g}× fewer iterations, and longer bursts adapt less "
      "often; frames per walker grow to {} (raise spawning.stride to keep fewer)",
      static_cast<double>(steps) / static_cast<double>(m.steps),
      steps / std::max<std::int64_t>(setup.stride, 1));
  if (steps == kMaxConfigInt / std::max<std::int64_t>(setup.stride, 1) * setup.stride) {
    r.note += "; capped at the largest spawning.step the configuration accepts";
  }
  if (r.speedup >= o.min_speedup) {
    advice.recommendations.push_back(std::move(r));
  } else {
    advice.not_recommended.push_back(
        {r.key, fmt::format("{}, but the model gains only {:.3g}× from {} steps ({})", r.reason,
                            r.speedup, steps, r.arithmetic)});
  }
}

// execution.persistent_workers does not cut start-up in Trails: say so when start-up is high.
void persistent_workers(const ModelFit& m, const ExecutionSetup& setup, const AdviceOptions& o,
                        Advice& advice) {
  if (setup.persistent_workers || startup_fraction(m, m.steps) <= o.startup_target) return;
  advice.not_recommended.push_back(
      {"execution.persistent_workers",
       "would not reduce start-up: with or without it each slot keeps one warm engine instance "
       "for the whole run (docs/execution.md), and the start-up measured here is that "
       "instance re-arming for each walker; worker processes add isolation, at 30-115 µs more "
       "per walker"});
}

// execution.workers_per_device: more walkers at once on each device of a device pool.
void packing(const ModelFit& m, const ExecutionSetup& setup, const AdviceOptions& o,
             Advice& advice) {
  if (setup.devices <= 0) return;
  const std::string key = "execution.workers_per_device";
  if (ceil_div(m.walkers, m.slots) <= 1) {
    advice.not_recommended.push_back(
        {key, fmt::format("every walker already runs at once ({} walkers, {} slots)", m.walkers,
                          m.slots)});
    return;
  }
  if (setup.engine_uses_devices && setup.n_atoms && *setup.n_atoms > o.small_system_atoms) {
    advice.not_recommended.push_back(
        {key, fmt::format("{} atoms probably keep a device busy with one walker (the rule of "
                          "thumb is below {} atoms); measure before packing",
                          *setup.n_atoms, o.small_system_atoms)});
    return;
  }
  const std::int64_t per_device = ceil_div(m.walkers, setup.devices);
  const std::int64_t k =
      std::min<std::int64_t>({2 * static_cast<std::int64_t>(setup.workers_per_device),
                              o.max_workers_per_device, per_device});
  if (k <= setup.workers_per_device) return;
  const int slots = static_cast<int>(setup.devices * k);
  Recommendation r;
  r.key = key;
  r.value = k;
  r.current = setup.workers_per_device;
  r.speedup = speedup_of(m, m.walkers, m.steps, slots);
  r.reason = fmt::format(
      "{} walkers queue for {} slots ({} rounds); {} per device make {} slots ({} rounds)",
      m.walkers, m.slots, ceil_div(m.walkers, m.slots), k, slots, ceil_div(m.walkers, slots));
  r.arithmetic = now_and_after(m, m.walkers, m.steps, slots);
  r.note =
      "an upper bound: it assumes each device has room for the extra walkers (per-walker time "
      "unchanged, as for a small system); run a few iterations and advise again: if "
      "integration per walker grew in proportion, the device was already full";
  if (setup.engine_uses_devices && !setup.mps_daemon) {
    r.note +=
        "; without an MPS daemon walkers on one GPU time-slice: start nvidia-cuda-mps-control "
        "-d (docs/execution.md, \"MPS and MIG\")";
  }
  if (r.speedup >= o.min_speedup) advice.recommendations.push_back(std::move(r));
}

// spawning.walker: fill the last round of walkers, whose empty slots idle.
void fill_last_round(const ModelFit& m, const AdviceOptions& o, Advice& advice) {
  const std::int64_t rounds = ceil_div(m.walkers, m.slots);
  const std::int64_t walkers = rounds * m.slots;
  if (walkers == m.walkers) return;
  Recommendation r;
  r.key = "spawning.walker";
  r.value = walkers;
  r.current = m.walkers;
  r.speedup = speedup_of(m, walkers, m.steps, m.slots);
  r.reason = fmt::format(
      "{} walkers on {} slots leave {} slot(s) idle in the last of {} rounds; {} walkers fill it",
      m.walkers, m.slots, walkers - m.walkers, rounds, walkers);
  r.arithmetic = now_and_after(m, walkers, m.steps, m.slots);
  r.note = "more walkers per iteration change the sampling, not only its speed";
  if (r.speedup >= o.min_speedup) advice.recommendations.push_back(std::move(r));
}

// The runner time of W walkers in array tasks of P, C tasks at once, each paying a launch L
// (queue wait, process and engine start) before its walkers of w each run one after another.
double array_runner_s(std::int64_t walkers, std::int64_t per_task, std::int64_t at_once,
                      double launch_s, double walker_s) {
  const std::int64_t tasks = ceil_div(walkers, per_task);
  return static_cast<double>(ceil_div(tasks, std::min(at_once, tasks))) *
         (launch_s + static_cast<double>(std::min(per_task, walkers)) * walker_s);
}

// execution.walkers_per_task (docs/advise.md, "Job packing"): the launch cost per array task is
// what the measured runner time leaves after the walkers' own time; fewer, longer tasks pay it
// fewer times when more tasks than run at once.
void job_packing(const ModelFit& m, const ExecutionSetup& setup, const AdviceOptions& o,
                 Advice& advice) {
  const std::string key = "execution.walkers_per_task";
  if (setup.backend == "local" || setup.backend == "mpi") {
    advice.not_recommended.push_back(
        {key, fmt::format("job packing is for scheduler arrays (execution.backend: slurm | pbs | "
                          "torque, where each array task otherwise starts one engine per walker); "
                          "this run used the {} backend, whose slots keep one warm engine for all "
                          "walkers",
                          setup.backend)});
    return;
  }
  const std::int64_t p = std::max(1, setup.walkers_per_task);
  const std::int64_t tasks = ceil_div(m.walkers, p);
  const std::int64_t at_once = setup.tasks_in_flight ? *setup.tasks_in_flight : tasks;
  const double walker_s = m.startup_s + static_cast<double>(m.steps) * m.step_s;
  const double rounds = static_cast<double>(ceil_div(tasks, std::min(at_once, tasks)));
  const double launch_s =
      std::max(0.0, m.runner_s / rounds - static_cast<double>(std::min(p, m.walkers)) * walker_s);
  const double rest = model_iteration_s(m, m.walkers, m.steps, m.slots) - m.runner_s;
  const double now = array_runner_s(m.walkers, p, at_once, launch_s, walker_s) + rest;
  std::int64_t best = p;
  double best_s = now;
  for (std::int64_t k = 1; k <= m.walkers; k *= 2) {
    const double t = array_runner_s(m.walkers, k, at_once, launch_s, walker_s) + rest;
    if (t < best_s * (1.0 - 1e-9)) {
      best = k;
      best_s = t;
    }
  }
  const std::string sums = fmt::format(
      "⌈{} tasks / {} at once⌉ × ({} launch + {} × {} per walker) + {} = {} per iteration", tasks,
      std::min(at_once, tasks), format_duration(launch_s), std::min(p, m.walkers),
      format_duration(walker_s), format_duration(rest), format_duration(now));
  const double speedup = best_s > 0.0 ? now / best_s : 1.0;
  if (best == p || speedup < o.min_speedup) {
    advice.not_recommended.push_back(
        {key, fmt::format("on the {} backend each array task paid {} of launch (queue wait, "
                          "start-up) before its {} walker(s); with {} tasks at most {} at once, "
                          "no other walkers_per_task gains {:.3g}× ({})",
                          setup.backend, format_duration(launch_s), p, tasks,
                          std::min(at_once, tasks), o.min_speedup, sums)});
    return;
  }
  Recommendation r;
  r.key = key;
  r.value = best;
  r.current = p;
  r.speedup = speedup;
  r.reason = fmt::format(
      "each {} array task paid {} of launch (queue wait, start-up) for {} walker(s) of {}; {} "
      "per task make {} launches per iteration instead of {}",
      setup.backend, format_duration(launch_s), p, format_duration(walker_s), best,
      ceil_div(m.walkers, best), tasks);
  r.arithmetic =
      fmt::format("now {}; after ⌈{} / {}⌉ × ({} + {} × {}) + {} = {}", sums,
                  ceil_div(m.walkers, best), std::min(at_once, ceil_div(m.walkers, best)),
                  format_duration(launch_s), std::min(best, m.walkers), format_duration(walker_s),
                  format_duration(rest), format_duration(best_s));
  r.note =
      "assumes the launch cost per task stays as measured (queue wait grows with the cluster's "
      "load) and that the cluster ran at most the tasks in flight at once";
  advice.recommendations.push_back(std::move(r));
}

void check_slots(const std::vector<IterationTiming>& iterations, const ExecutionSetup& setup,
                 Advice& advice) {
  double busy = 0.0, runner = 0.0;
  for (const auto& it : iterations) {
    runner += it.runner_s;
    for (const auto& w : it.walkers) busy += w.startup_s + w.integrate_s;
  }
  if (runner > 0.0 && busy > 1.05 * runner * setup.slots) {
    advice.warnings.push_back(fmt::format(
        "walkers kept {:.2f} slots busy on average, more than the {} slots of the recorded "
        "configuration: the run was probably resumed with other execution settings (only "
        "result-relevant changes are recorded), so the advice below may not fit",
        busy / runner, setup.slots));
  }
}

}  // namespace

Advice advise(const std::vector<IterationTiming>& iterations, const ExecutionSetup& setup,
              const AdviceOptions& options) {
  TRAILS_CHECK(!iterations.empty(), "advise needs at least one committed iteration");
  Advice advice;
  advice.fit = fit_model(iterations, std::max(setup.slots, 1));
  check_slots(iterations, setup, advice);
  walker_length(advice.fit, setup, options, advice);
  persistent_workers(advice.fit, setup, options, advice);
  packing(advice.fit, setup, options, advice);
  fill_last_round(advice.fit, options, advice);
  job_packing(advice.fit, setup, options, advice);
  std::stable_sort(
      advice.recommendations.begin(), advice.recommendations.end(),
      [](const Recommendation& a, const Recommendation& b) { return a.speedup > b.speedup; });
  return advice;
}

}  // namespace trails::analysis
