// The last element of a swarm chain's cycle (private to the swarm module; docs/swarm.md, "The
// cycle"): the FinishedCycle that waits for its commit. Its record holds the cycle's own fields
// (trials, selection, outcome, the new anchor, convergence); what carries across cycles is each
// checkpoint client's state() (FinishedCycle::state), which the commit writes into the stored
// record beside them and --resume restores from it. Keeps nothing across cycles.
#pragma once

#include <vector>

#include "trails/swarm/chain_cycle.h"
#include "trails/swarm/progress_metric.h"

namespace trails::swarm {

class CycleRecorder final : public ChainElement {
 public:
  // `clients`: the chain's stateful elements; they outlive this one.
  CycleRecorder(int chain, const Anchor& anchor, const ProgressMetric& metric,
                std::vector<double> start_cvs, std::vector<const core::CheckpointClient*> clients)
      : chain_(chain),
        anchor_(anchor),
        metric_(metric),
        start_cvs_(std::move(start_cvs)),
        clients_(std::move(clients)) {}

  std::string_view name() const override { return "record"; }
  void run(ChainCycle& c) override;

  // Every client's blobs now, key -> value (the blobs of one key merged).
  nlohmann::json carried_state() const;

 private:
  int chain_;
  const Anchor& anchor_;
  const ProgressMetric& metric_;
  std::vector<double> start_cvs_;
  std::vector<const core::CheckpointClient*> clients_;
};

}  // namespace trails::swarm
