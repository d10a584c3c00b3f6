#include "trails/swarm/stop_rules.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::swarm {

std::vector<CvBound> resolve_cv_bounds(const config::SwarmOptions& o,
                                       const std::vector<std::string>& columns,
                                       const std::string& config_file) {
  std::vector<CvBound> out;
  const auto add = [&](const std::map<std::string, double>& bounds, const char* key, bool at_most) {
    for (const auto& [name, bound] : bounds) {
      const auto it = std::find(columns.begin(), columns.end(), name);
      if (it == columns.end()) {
        throw core::ConfigError(
            fmt::format("{}: convergence.{}.{}: no CV of that name; the CVs are: {}", config_file,
                        key, name, fmt::join(columns, ", ")));
      }
      out.push_back(CvBound{static_cast<std::size_t>(it - columns.begin()), bound, at_most});
    }
  };
  add(o.cv_at_most, "cv_at_most", true);
  add(o.cv_at_least, "cv_at_least", false);
  return out;
}

bool converged(const config::SwarmOptions& o, const ProgressMetric& metric,
               const std::vector<CvBound>& bounds, std::int64_t cycle, std::span<const double> cvs,
               double progress, const std::function<bool()>& function) {
  if (cycle < o.min_cycles) return false;
  bool any = false;
  // Every test that is set must hold (PathGennie's unbinding stop was a conjunction).
  if (o.distance_to_target) {
    if (!(metric.distance(cvs) <= *o.distance_to_target)) return false;
    any = true;
  }
  if (o.metric_at_least) {
    if (!(progress >= *o.metric_at_least)) return false;
    any = true;
  }
  for (const CvBound& b : bounds) {
    const double x = cvs[b.column];
    if (!(b.at_most ? x <= b.bound : x >= b.bound)) return false;
    any = true;
  }
  if (function) {
    if (!function()) return false;
    any = true;
  }
  return any;
}

std::string update_stall_rules(const config::SwarmOptions& o, ChainMemory& memory, double progress,
                               double steady) {
  // The folder's patience: the best progress must rise by more than the tolerance.
  if (progress > memory.stall_best + o.stall_tolerance) {
    memory.stall_best = progress;
    memory.stall_count = 0;
  } else {
    ++memory.stall_count;
  }
  // The unfolder's window: W values in a row whose successive changes are all below the
  // tolerance, i.e. W − 1 small changes.
  if (std::isfinite(memory.steady_last) &&
      std::abs(steady - memory.steady_last) < o.stagnation_tolerance) {
    ++memory.steady_count;
  } else {
    memory.steady_count = 0;
  }
  memory.steady_last = steady;
  if (o.stall_cycles && memory.stall_count >= *o.stall_cycles) return "stalled";
  if (o.stagnation_window && memory.steady_count >= *o.stagnation_window - 1) return "stagnated";
  return "";
}

}  // namespace trails::swarm
