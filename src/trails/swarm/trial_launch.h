// The trial launch of a swarm chain's cycle (private to the swarm module; docs/swarm.md, "The
// cycle", steps 1-2): on a cycle's first run it draws the cycle's seeds and reserves one task id
// per trial; each run hands out the next batch of trial tasks from the anchor (every trial at
// once in the softmax cycle, `batch` probes in the legacy modes) and waits for their results.
// Keeps nothing across cycles: the seeds follow from (seed, chain, cycle).
#pragma once

#include "trails/config/swarm_config.h"
#include "trails/swarm/chain_cycle.h"

namespace trails::swarm {

// The seeds of chain `chain`'s cycle `cycle`, drawn in PathGennie's order (docs/swarm.md,
// "Reproducibility").
CycleSeeds draw_cycle_seeds(std::uint64_t master_seed, int chain, std::int64_t cycle, int n_trials);

class TrialLaunch final : public ChainElement {
 public:
  // `anchor`: the chain's, read at each launch.
  TrialLaunch(int chain, const Anchor& anchor, const config::SwarmOptions& options)
      : chain_(chain), anchor_(anchor), o_(options) {}

  std::string_view name() const override { return "trials"; }
  void run(ChainCycle& c) override;

 private:
  void open(ChainCycle& c) const;
  engines::SegmentTask trial_task(const ChainCycle& c, std::size_t i) const;

  int chain_;
  const Anchor& anchor_;
  const config::SwarmOptions& o_;
};

}  // namespace trails::swarm
