// The stop rules of a swarm chain (private to the swarm module; docs/swarm.md, "Stopping" and
// "Legacy modes"): after the guard has settled the new anchor, the ratchet (unbind, unfold)
// rises to its value, the stall rules count, and the convergence test decides whether the chain
// is done. Owns ChainMemory, which carries across cycles: state() writes it into the cycle
// record (key "swarm": ratchet, stall_best, stall_count, steady_last, steady_count) and
// restore() reads it back from the last committed record on --resume.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "trails/config/swarm_config.h"
#include "trails/swarm/chain_cycle.h"
#include "trails/swarm/progress_metric.h"
#include "trails/swarm/stop_rules.h"

namespace trails::swarm {

class ChainStopRules final : public ChainElement, public core::CheckpointClient {
 public:
  static constexpr core::StateKey kKey{store::kCycleRecordKey, store::kCycleRecordVersion};

  // A fresh chain's memory, from its start `anchor` (the chain's, read each cycle): the record
  // to beat is the start's own value.
  ChainStopRules(const Anchor& anchor, const ProgressMetric& metric, std::vector<CvBound> bounds,
                 const config::SwarmOptions& options);

  // PathGennie's convergence function on an anchor's positions (nm), one more test beside the
  // declarative ones (docs/swarm.md, "Stopping").
  using ConvergenceFunction = std::function<bool(std::span<const double>)>;
  void set_convergence_function(ConvergenceFunction f) { convergence_function_ = std::move(f); }

  // Before cycle `cycle` starts: unfold's phase switch resets the ratchet and the window.
  void open_cycle(std::int64_t cycle);

  std::string_view name() const override { return "stop rules"; }
  void run(ChainCycle& c) override;

  std::vector<core::StateKey> state_keys() const override { return {kKey}; }
  nlohmann::json state() const override;
  void restore(const nlohmann::json& state) override;

  const ChainMemory& memory() const { return memory_; }

 private:
  bool ratchets() const;

  const Anchor& anchor_;
  const ProgressMetric& metric_;
  std::vector<CvBound> bounds_;
  const config::SwarmOptions& o_;
  ConvergenceFunction convergence_function_;
  ChainMemory memory_;
};

}  // namespace trails::swarm
