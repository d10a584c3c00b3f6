// One chain of a swarm run (private to the swarm module): its anchor and the elements its cycle
// is composed of, in order (docs/architecture.md, "Swarm elements"; docs/swarm.md, "The cycle"):
// trial launch → scoring → selection → extension → anchor guard → stop rules → record. The
// chain runs them over its ChainCycle from the step the cycle is at until the cycle waits for
// results or is finished; the driver hands it the results of its tasks.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "trails/config/swarm_config.h"
#include "trails/engines/engine.h"
#include "trails/features/projection.h"
#include "trails/swarm/anchor_guard.h"
#include "trails/swarm/chain_cycle.h"
#include "trails/swarm/chain_stop_rules.h"
#include "trails/swarm/cycle_recorder.h"
#include "trails/swarm/progress_metric.h"
#include "trails/swarm/trial_extension.h"
#include "trails/swarm/trial_launch.h"
#include "trails/swarm/trial_scoring.h"
#include "trails/swarm/trial_selection.h"

namespace trails::swarm {

// The start configuration of chain k: system.start's point (one for all, or one per chain) on
// the built-in engine, else the engine's prepared structure; no velocities.
engines::Configuration chain_start(const config::SwarmConfig& config, const engines::Engine& engine,
                                   int chain);

// What a result leads to: more tasks (the next batch of probes, or the extension), or the
// finished cycle.
struct Step {
  std::vector<engines::SegmentTask> tasks;
  std::optional<FinishedCycle> finished;
};

class Chain {
 public:
  // A fresh chain at its `start` (CVs and progress filled in). `projection` and `options`
  // outlive the chain.
  Chain(int index, Anchor start, ProgressMetric metric, std::vector<CvBound> bounds,
        const features::Projection& projection, const config::SwarmOptions& options);
  Chain(const Chain&) = delete;  // the elements hold references into the chain
  Chain& operator=(const Chain&) = delete;

  // Continues after the committed cycle `last` from its `anchor`: every checkpoint client
  // restores its state from the record.
  void resume(Anchor anchor, const store::CycleRecord& last);

  void set_convergence_function(ChainStopRules::ConvergenceFunction f) {
    stop_rules_.set_convergence_function(std::move(f));
  }

  int index() const { return index_; }
  bool done() const { return done_; }
  bool busy() const { return running_.has_value(); }
  std::int64_t next_cycle() const { return cycle_; }

  // Starts cycle next_cycle(): the trial tasks (every trial; the first batch of probes in the
  // legacy modes, `batch` of them), ids from `next_task_id` on.
  std::vector<engines::SegmentTask> start_cycle(int batch, std::int64_t& next_task_id);
  // The result of one of this chain's tasks (owns()). Throws EngineError when every trial of
  // the cycle failed. A finished cycle's record.anchor, the stored frame key, is filled in at
  // commit, when the store iteration is known.
  Step take(engines::SegmentResult result, std::int64_t& next_task_id);

  bool owns(std::int64_t task_id) const { return owns_trial(task_id) || owns_tau2(task_id); }
  bool owns_trial(std::int64_t task_id) const;
  bool owns_tau2(std::int64_t task_id) const;

  // The cycle's elements in order, and the stateful ones (resume() restores each of them).
  std::vector<const ChainElement*> elements() const;
  std::vector<const core::CheckpointClient*> checkpoint_clients() const {
    return {&guard_, &stop_rules_};
  }
  const Anchor& anchor() const { return anchor_; }

 private:
  Step advance(std::int64_t& next_task_id);
  ChainElement& element(CycleStep step);

  int index_;
  const config::SwarmOptions& o_;
  Anchor anchor_;
  ProgressMetric metric_;
  std::int64_t cycle_ = 0;
  bool done_ = false;
  // The elements, declared in the order they may be constructed (each refers to those above).
  TrialLaunch launch_;
  TrialScoring scoring_;
  ChainStopRules stop_rules_;
  TrialSelection selection_;
  TrialExtension extension_;
  AnchorGuard guard_;
  CycleRecorder recorder_;
  std::optional<ChainCycle> running_;
};

}  // namespace trails::swarm
