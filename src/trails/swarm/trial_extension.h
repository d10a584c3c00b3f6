// The τ2 extension of a swarm chain's cycle (private to the swarm module; docs/swarm.md, "The
// cycle", steps 5-6): first it hands out the chosen trial's extension (its velocities continued,
// the cycle's τ2 seed) and waits; when the result is in, the candidate is its end, or the chosen
// trial's end when the extension failed or, with reject_worse_tau2, lost progress over it.
// Keeps nothing across cycles.
#pragma once

#include "trails/config/swarm_config.h"
#include "trails/features/projection.h"
#include "trails/swarm/chain_cycle.h"
#include "trails/swarm/progress_metric.h"

namespace trails::swarm {

class TrialExtension final : public ChainElement {
 public:
  TrialExtension(const ProgressMetric& metric, const features::Projection& projection,
                 const config::SwarmOptions& options)
      : metric_(metric), projection_(projection), o_(options) {}

  std::string_view name() const override { return "extension"; }
  // Without c.arrived: the extension task of c.chosen. With it: the candidate.
  void run(ChainCycle& c) override;

 private:
  void launch(ChainCycle& c) const;
  void take(ChainCycle& c) const;

  const ProgressMetric& metric_;
  const features::Projection& projection_;
  const config::SwarmOptions& o_;
};

}  // namespace trails::swarm
