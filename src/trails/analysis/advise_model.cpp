// The breakdown and the model of `trails advise` (advise_model.h, docs/advise.md).
#include "trails/analysis/advise_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::analysis {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  return 0.5 * (*mid + *std::max_element(v.begin(), mid));
}

// The trailing iterations that ran with the last one's walker count and walker length.
std::vector<const IterationTiming*> fit_window(const std::vector<IterationTiming>& iterations) {
  std::vector<const IterationTiming*> window;
  const auto& last = iterations.back();
  for (auto it = iterations.rbegin(); it != iterations.rend(); ++it) {
    if (it->walkers.size() != last.walkers.size() || it->steps != last.steps) break;
    window.insert(window.begin(), &*it);
  }
  return window;
}

}  // namespace

IterationBreakdown break_down(const IterationTiming& it, int slots) {
  IterationBreakdown b;
  b.iteration = it.iteration;
  b.walkers = static_cast<std::int64_t>(it.walkers.size());
  for (const auto& w : it.walkers) {
    b.startup_s += w.startup_s;
    b.integrate_s += w.integrate_s;
  }
  b.startup_s /= slots;
  b.integrate_s /= slots;
  b.idle_s = it.runner_s - b.startup_s - b.integrate_s;
  b.frame_s = it.frame_s;
  b.other_s = it.other_s;
  b.wall_s = it.runner_s + it.frame_s + it.other_s.value_or(0.0);
  return b;
}

IterationBreakdown total_of(const std::vector<IterationBreakdown>& rows) {
  IterationBreakdown t;
  for (const auto& r : rows) {
    t.walkers += r.walkers;
    t.wall_s += r.wall_s;
    t.startup_s += r.startup_s;
    t.integrate_s += r.integrate_s;
    t.idle_s += r.idle_s;
    t.frame_s += r.frame_s;
    if (r.other_s) t.other_s = t.other_s.value_or(0.0) + *r.other_s;
  }
  return t;
}

ModelFit fit_model(const std::vector<IterationTiming>& iterations, int slots) {
  TRAILS_CHECK(!iterations.empty() && slots >= 1, "fit_model needs an iteration and a slot");
  const auto window = fit_window(iterations);
  ModelFit m;
  m.first_iteration = window.front()->iteration;
  m.last_iteration = window.back()->iteration;
  m.walkers = static_cast<std::int64_t>(window.back()->walkers.size());
  m.steps = window.back()->steps;
  m.slots = slots;
  std::vector<double> startups;
  double ok_integrate = 0.0, other = 0.0;
  std::int64_t ok_walkers = 0, other_known = 0;
  for (const auto* it : window) {
    for (const auto& w : it->walkers) {
      startups.push_back(w.startup_s);
      m.mean_startup_s += w.startup_s;
      if (w.ok) {
        ok_integrate += w.integrate_s;
        ++ok_walkers;
      }
    }
    m.runner_s += it->runner_s;
    m.frame_s += it->frame_s;
    if (it->other_s) {
      other += *it->other_s;
      ++other_known;
    }
  }
  const auto n = static_cast<double>(window.size());
  // The median: the first walker on each slot also builds the engine instance (once per run).
  m.startup_s = median(startups);
  if (!startups.empty()) m.mean_startup_s /= static_cast<double>(startups.size());
  if (ok_walkers > 0 && m.steps > 0) {
    m.step_s = ok_integrate / (static_cast<double>(ok_walkers) * static_cast<double>(m.steps));
  }
  m.runner_s /= n;
  m.frame_s /= n;
  m.other_s = other_known > 0 ? other / static_cast<double>(other_known) : 0.0;
  const auto waves = static_cast<double>(ceil_div(std::max<std::int64_t>(m.walkers, 1), slots));
  m.dispatch_s = m.runner_s - waves * (m.startup_s + static_cast<double>(m.steps) * m.step_s);
  return m;
}

double model_iteration_s(const ModelFit& m, std::int64_t walkers, std::int64_t steps, int slots) {
  const auto waves = static_cast<double>(ceil_div(std::max<std::int64_t>(walkers, 1), slots));
  const double frames_ratio = static_cast<double>(walkers) * static_cast<double>(steps) /
                              (static_cast<double>(std::max<std::int64_t>(m.walkers, 1)) *
                               static_cast<double>(std::max<std::int64_t>(m.steps, 1)));
  return waves * (m.startup_s + static_cast<double>(steps) * m.step_s) + m.dispatch_s +
         m.frame_s * frames_ratio + m.other_s;
}

double model_steps_per_s(const ModelFit& m, std::int64_t walkers, std::int64_t steps, int slots) {
  const double t = model_iteration_s(m, walkers, steps, slots);
  return t > 0.0 ? static_cast<double>(walkers) * static_cast<double>(steps) / t : 0.0;
}

double startup_fraction(const ModelFit& m, std::int64_t steps) {
  const double walker = m.startup_s + static_cast<double>(steps) * m.step_s;
  return walker > 0.0 ? m.startup_s / walker : 0.0;
}

std::string describe_model(const ModelFit& m, std::int64_t walkers, std::int64_t steps, int slots) {
  const double ratio = static_cast<double>(walkers) * static_cast<double>(steps) /
                       (static_cast<double>(std::max<std::int64_t>(m.walkers, 1)) *
                        static_cast<double>(std::max<std::int64_t>(m.steps, 1)));
  const std::string frames = ratio == 1.0
                                 ? format_duration(m.frame_s)
                                 : fmt::format("{} × {:.6g}", format_duration(m.frame_s), ratio);
  return fmt::format(
      "⌈{}/{}⌉ × ({} + {} × {}) + {} + {} + {} = {} per iteration: {} steps, {:.0f} steps/s",
      walkers, slots, format_duration(m.startup_s), steps, format_duration(m.step_s),
      format_duration(m.dispatch_s), frames, format_duration(m.other_s),
      format_duration(model_iteration_s(m, walkers, steps, slots)), walkers * steps,
      model_steps_per_s(m, walkers, steps, slots));
}

std::string format_duration(double seconds) {
  const double a = std::fabs(seconds);
  if (a == 0.0) return "0 s";
  if (a >= 1.0) return fmt::format("{:.3g} s", seconds);
  if (a >= 1e-3) return fmt::format("{:.3g} ms", seconds * 1e3);
  if (a >= 1e-6) return fmt::format("{:.3g} µs", seconds * 1e6);
  return fmt::format("{:.3g} ns", seconds * 1e9);
}

}  // namespace trails::analysis
