#include "trails/swarm/trial_scoring.h"

#include <span>

#include "trails/core/error.h"

namespace trails::swarm {

std::vector<double> end_cvs(const engines::SegmentResult& r,
                            const features::Projection& projection) {
  const std::size_t per_frame =
      static_cast<std::size_t>(r.n_atoms) * static_cast<std::size_t>(r.spatial_dim);
  const std::span<const double> last(r.frames.data() + r.frames.size() - per_frame, per_frame);
  std::span<const double> box;
  if (!r.frame_boxes.empty()) box = std::span<const double>(r.frame_boxes).last(9);
  std::vector<double> out;
  projection.project(last, 1, box, out);
  return out;
}

bool judged_by_score(const config::SwarmOptions& o, std::int64_t cycle) {
  return o.probing == config::Probing::Unfold && cycle < o.unfold_phase_cycles;
}

double judged_value(const config::SwarmOptions& o, const ProgressMetric& metric,
                    const std::vector<double>& cvs, double progress, std::int64_t cycle) {
  return judged_by_score(o, cycle) ? metric.weighted_displacement(cvs) : progress;
}

void TrialScoring::run(ChainCycle& c) {
  TRAILS_CHECK(c.arrived.has_value(), "trial scoring without a result");
  engines::SegmentResult result = std::move(*c.arrived);
  c.arrived.reset();
  const auto i = static_cast<std::size_t>(result.task_id - c.first_task);
  if (result.ok() && result.n_frames > 0) {
    c.trial_cvs[i] = end_cvs(result, projection_);
    c.metrics[i] = metric_(c.trial_cvs[i]);
    c.values[i] = judged_value(o_, metric_, c.trial_cvs[i], c.metrics[i], c.cycle);
  }
  c.trials[i] = std::move(result);
  c.next = --c.batch_left > 0 ? CycleStep::Wait : CycleStep::Select;
}

}  // namespace trails::swarm
