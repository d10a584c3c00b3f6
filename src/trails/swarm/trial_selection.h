// The selection of a swarm chain's cycle (private to the swarm module; docs/swarm.md, "The
// cycle", step 4, and "Legacy modes"), once a batch of trials is in: the softmax draw over every
// trial, or the legacy modes' lowest-index improver (the answer of sequential first-improvement
// probing, whatever the batch size). Then the extension runs, another batch of probes is
// launched, or (unbind, unfold without an improver) the best probe's end is the candidate
// without τ2. Throws EngineError when no trial gave a finite value. Keeps nothing across cycles.
#pragma once

#include "trails/config/swarm_config.h"
#include "trails/swarm/chain_cycle.h"
#include "trails/swarm/stop_rules.h"

namespace trails::swarm {

class TrialSelection final : public ChainElement {
 public:
  // `anchor`: the chain's (fold improves on its progress); `memory`: the stop rules' (unbind and
  // unfold beat its ratchet).
  TrialSelection(int chain, const Anchor& anchor, const ChainMemory& memory,
                 const config::SwarmOptions& options)
      : chain_(chain), anchor_(anchor), memory_(memory), o_(options) {}

  std::string_view name() const override { return "selection"; }
  void run(ChainCycle& c) override;

 private:
  void softmax(ChainCycle& c) const;
  void first_improvement(ChainCycle& c) const;
  [[noreturn]] void all_failed(const ChainCycle& c) const;

  int chain_;
  const Anchor& anchor_;
  const ChainMemory& memory_;
  const config::SwarmOptions& o_;
};

}  // namespace trails::swarm
