// The trial scoring of a swarm chain's cycle (private to the swarm module; docs/swarm.md, "The
// cycle", step 3, and "Legacy modes"): the CVs and progress of each trial's end as its result
// arrives, and the value the legacy modes judge it by; a failed trial keeps NaN (quarantined).
// When the batch's last result is in, selection runs. Keeps nothing across cycles.
#pragma once

#include <vector>

#include "trails/config/swarm_config.h"
#include "trails/features/projection.h"
#include "trails/swarm/chain_cycle.h"
#include "trails/swarm/progress_metric.h"

namespace trails::swarm {

// The CVs of a segment's last frame.
std::vector<double> end_cvs(const engines::SegmentResult& r,
                            const features::Projection& projection);

// unfold before its phase switch judges by the weighted score, everything else by progress.
bool judged_by_score(const config::SwarmOptions& o, std::int64_t cycle);
// The value cycle `cycle` judges a state of these CVs and progress by.
double judged_value(const config::SwarmOptions& o, const ProgressMetric& metric,
                    const std::vector<double>& cvs, double progress, std::int64_t cycle);
inline double judged_value(const config::SwarmOptions& o, const ProgressMetric& metric,
                           const Anchor& a, std::int64_t cycle) {
  return judged_value(o, metric, a.cvs, a.metric, cycle);
}

class TrialScoring final : public ChainElement {
 public:
  TrialScoring(const ProgressMetric& metric, const features::Projection& projection,
               const config::SwarmOptions& options)
      : metric_(metric), projection_(projection), o_(options) {}

  std::string_view name() const override { return "scoring"; }
  // Takes c.arrived, a trial of this cycle.
  void run(ChainCycle& c) override;

 private:
  const ProgressMetric& metric_;
  const features::Projection& projection_;
  const config::SwarmOptions& o_;
};

}  // namespace trails::swarm
