// The anchor guard of a swarm chain's cycle (private to the swarm module; docs/swarm.md, "The
// cycle", step 6): with reject_worse_anchor, a candidate whose value is below the anchor's is
// refused and the anchor kept; otherwise the candidate becomes the chain's anchor. Owns the
// path's length in MD steps, which carries across cycles: state() writes it into the cycle
// record (key "swarm": path_steps) and restore() reads it back on --resume.
#pragma once

#include <cstdint>

#include "trails/config/swarm_config.h"
#include "trails/swarm/chain_cycle.h"
#include "trails/swarm/progress_metric.h"

namespace trails::swarm {

class AnchorGuard final : public ChainElement, public core::CheckpointClient {
 public:
  static constexpr core::StateKey kKey{store::kCycleRecordKey, store::kCycleRecordVersion};

  // `anchor`: the chain's, replaced by an accepted candidate.
  AnchorGuard(Anchor& anchor, const ProgressMetric& metric, const config::SwarmOptions& options)
      : anchor_(anchor), metric_(metric), o_(options) {}

  std::string_view name() const override { return "anchor guard"; }
  // Takes c.candidate; a kept anchor adds no steps to the path.
  void run(ChainCycle& c) override;

  std::vector<core::StateKey> state_keys() const override { return {kKey}; }
  nlohmann::json state() const override;
  void restore(const nlohmann::json& state) override;

  std::int64_t path_steps() const { return path_steps_; }

 private:
  Anchor& anchor_;
  const ProgressMetric& metric_;
  const config::SwarmOptions& o_;
  std::int64_t path_steps_ = 0;
};

}  // namespace trails::swarm
