// When a swarm chain stops before its cycle cap (docs/swarm.md, "Stopping"): the convergence
// test on its anchor, and PathGennie's legacy stall rules with their constants as keys (the
// folder's patience on the best progress, the unfolder's stagnation window). Private to the
// swarm module; pure functions over a chain's small memory, which every cycle record stores so
// that --resume continues it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "trails/config/swarm_config.h"
#include "trails/swarm/progress_metric.h"

namespace trails::swarm {

// What the ratchet and the stall rules remember between cycles.
struct ChainMemory {
  double ratchet = 0.0;           // unbind, unfold: the record a probe must beat
  double stall_best = 0.0;        // the best anchor progress so far
  std::int64_t stall_count = 0;   // cycles since stall_best last rose by > stall_tolerance
  double steady_last = 0.0;       // the last stagnation value (NaN: none yet)
  std::int64_t steady_count = 0;  // cycles in a row that changed it by < stagnation_tolerance
};

// One convergence.cv_at_most / cv_at_least entry, resolved to its CV column.
struct CvBound {
  std::size_t column = 0;
  double bound = 0.0;
  bool at_most = true;
};

// Resolves the CV names of convergence.cv_at_most / cv_at_least against the projection's
// columns. Throws ConfigError naming the key and the valid names.
std::vector<CvBound> resolve_cv_bounds(const config::SwarmOptions& o,
                                       const std::vector<std::string>& columns,
                                       const std::string& config_file);

// Whether an anchor (its CVs and progress) passes every convergence test that is set (none
// set: never); from cycle `min_cycles` on. `function`, when given, is the PathGennie
// convergence function on the anchor: one more test that must hold, called only when the
// declarative ones do.
bool converged(const config::SwarmOptions& o, const ProgressMetric& metric,
               const std::vector<CvBound>& bounds, std::int64_t cycle, std::span<const double> cvs,
               double progress, const std::function<bool()>& function = {});

// Folds one cycle's anchor into the stall rules: `progress` is the anchor's progress, `steady`
// the value the stagnation window watches. Returns "stalled", "stagnated" or "".
std::string update_stall_rules(const config::SwarmOptions& o, ChainMemory& memory, double progress,
                               double steady);

}  // namespace trails::swarm
