// What the swarm element tests share: a point in the plane whose CVs are its coordinates and
// whose progress is its distance from the origin (escape mode, distance_from_start), trial
// results ending at given points, and a cycle whose trials are in.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "trails/config/swarm_config.h"
#include "trails/features/projection.h"
#include "trails/swarm/chain_cycle.h"
#include "trails/swarm/progress_metric.h"

namespace trails::swarm::test {

struct Point {
  double x = 0.0;
  double y = 0.0;
};

inline config::SwarmOptions options(int n_trials) {
  config::SwarmOptions o;
  o.max_trial = n_trials;
  o.tau1_steps = 10;
  o.tau2_steps = 20;
  o.max_cycle = 100;
  o.seed = 7;
  return o;
}

inline ProgressMetric distance_from_origin() {
  return ProgressMetric(config::SwarmMode::Escape, config::EscapeMetric::DistanceFromStart,
                        {0.0, 0.0}, {0.0, 0.0});
}

inline std::unique_ptr<features::Projection> coordinates() {
  return features::make_identity_projection(2);
}

inline Anchor anchor_at(Point p) {
  Anchor a;
  a.state.positions = {p.x, p.y};
  a.cvs = {p.x, p.y};
  a.metric = std::hypot(p.x, p.y);
  return a;
}

// A segment of one frame that ended at `p` with velocities (1, 2).
inline engines::SegmentResult ended_at(std::int64_t task_id, Point p) {
  engines::SegmentResult r;
  r.task_id = task_id;
  r.status = engines::SegmentStatus::Ok;
  r.n_atoms = 1;
  r.spatial_dim = 2;
  r.n_frames = 1;
  r.frames = {p.x, p.y};
  r.final_state.positions = {p.x, p.y};
  r.final_state.velocities = {1.0, 2.0};
  return r;
}

inline engines::SegmentResult failed(std::int64_t task_id) {
  engines::SegmentResult r;
  r.task_id = task_id;
  r.status = engines::SegmentStatus::Failed;
  r.error = "exploded";
  return r;
}

// Cycle `cycle` whose first ends.size() trials (of n_trials) ended at `ends` (none: failed),
// scored as the scoring element does: progress is the distance from the origin, and so is the
// value the legacy modes judge by.
inline ChainCycle cycle_with(const std::vector<std::optional<Point>>& ends, int n_trials,
                             std::int64_t cycle = 0) {
  ChainCycle c;
  c.cycle = cycle;
  c.seeds.trials.assign(static_cast<std::size_t>(n_trials), 0);
  for (std::size_t i = 0; i < c.seeds.trials.size(); ++i) c.seeds.trials[i] = 100 + i;
  c.seeds.selection_u = 0.5;
  c.seeds.tau2 = 99;
  c.trials.resize(static_cast<std::size_t>(n_trials));
  c.trial_cvs.resize(c.trials.size());
  c.metrics.assign(c.trials.size(), kNoValue);
  c.values.assign(c.trials.size(), kNoValue);
  for (std::size_t i = 0; i < ends.size(); ++i) {
    const auto id = static_cast<std::int64_t>(i);
    if (!ends[i]) {
      c.trials[i] = failed(id);
      continue;
    }
    c.trials[i] = ended_at(id, *ends[i]);
    c.trial_cvs[i] = {ends[i]->x, ends[i]->y};
    c.metrics[i] = c.values[i] = std::hypot(ends[i]->x, ends[i]->y);
  }
  c.submitted = ends.size();
  return c;
}

}  // namespace trails::swarm::test
