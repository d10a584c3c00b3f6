// One chain of a swarm run and the cycle it is working on (private to the swarm module): the
// anchor, the cycle's seeds drawn in PathGennie's order, the trials' results as they arrive,
// and the selection and guards that turn them into the next anchor (docs/swarm.md, "The cycle").
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "trails/config/swarm_config.h"
#include "trails/engines/engine.h"
#include "trails/engines/segment.h"
#include "trails/features/projection.h"
#include "trails/store/cycle_record.h"
#include "trails/swarm/progress_metric.h"
#include "trails/swarm/stop_rules.h"

namespace trails::swarm {

struct Anchor {
  engines::Configuration state;  // positions and box (velocities are redrawn each trial)
  std::vector<double> cvs;
  double metric = 0.0;
};

// The seeds of chain `chain`'s cycle `cycle`: N trial seeds, the selection draw, the τ2 seed
// (the legacy modes use the trial seeds by probe index and the τ2 seed, not the draw).
struct CycleSeeds {
  std::vector<std::uint64_t> trials;
  double selection_u = 0.0;
  std::uint64_t tau2 = 0;
};
CycleSeeds draw_cycle_seeds(std::uint64_t master_seed, int chain, std::int64_t cycle, int n_trials);

// The start configuration of chain k: system.start's point (one for all, or one per chain) on
// the built-in engine, else the engine's prepared structure; no velocities.
engines::Configuration chain_start(const config::SwarmConfig& config, const engines::Engine& engine,
                                   int chain);

// A finished cycle waiting for its turn to be committed.
struct FinishedCycle {
  store::CycleRecord record;
  std::vector<engines::SegmentResult> trials;  // the trials that ran, by index (0, 1, ...)
  std::vector<std::uint64_t> trial_seeds;      // their seeds
  std::optional<engines::SegmentResult> tau2;  // none: no extension ran (unbind's fallback)
  std::uint64_t tau2_seed = 0;
  int chains_running = 0;  // chains with cycles left when this one finished (progress line)
};

// What a trial's result leads to: more tasks (the next batch of probes, or the extension), or
// the end of the cycle without an extension.
struct Step {
  std::vector<engines::SegmentTask> tasks;
  std::optional<FinishedCycle> finished;
};

class Chain {
 public:
  // `start_cvs`: the CVs of the chain's start configuration (recorded with every cycle).
  // `memory`: the ratchet and stall rules (fresh_memory() on a fresh chain).
  Chain(int index, Anchor anchor, std::vector<double> start_cvs, ProgressMetric metric,
        std::vector<CvBound> bounds, std::int64_t first_cycle, std::int64_t path_steps,
        ChainMemory memory, bool done);

  // A fresh chain's memory from its start: the record to beat is the start's own value.
  static ChainMemory fresh_memory(const config::SwarmOptions& o, const Anchor& start,
                                  const ProgressMetric& metric);

  // PathGennie's convergence function on an anchor's positions (nm), one more test beside the
  // declarative ones (docs/swarm.md, "Stopping").
  using ConvergenceFunction = std::function<bool(std::span<const double>)>;
  void set_convergence_function(ConvergenceFunction f) { convergence_function_ = std::move(f); }

  int index() const { return index_; }
  bool done() const { return done_; }
  bool busy() const { return running_.has_value(); }
  std::int64_t next_cycle() const { return cycle_; }

  // Starts cycle next_cycle(): the trial tasks (every trial; the first batch of probes in the
  // legacy modes, `batch` of them), ids from `next_task_id` on.
  std::vector<engines::SegmentTask> start_cycle(const config::SwarmOptions& o, int batch,
                                                std::int64_t& next_task_id);
  // A trial's result. Throws EngineError when every trial failed.
  Step take_trial(engines::SegmentResult result, const features::Projection& projection,
                  const config::SwarmOptions& o, std::int64_t& next_task_id);
  // The τ2 result: decides the new anchor and returns the finished cycle (record.anchor, the
  // stored frame key, is filled in at commit, when the store iteration is known).
  FinishedCycle take_tau2(engines::SegmentResult result, const features::Projection& projection,
                          const config::SwarmOptions& o);

  bool owns_trial(std::int64_t task_id) const;
  bool owns_tau2(std::int64_t task_id) const;

 private:
  struct Running {
    std::int64_t cycle = 0;
    CycleSeeds seeds;
    std::int64_t first_task = 0;
    std::vector<std::optional<engines::SegmentResult>> trials;
    std::size_t submitted = 0;   // trials handed out (all of them, or the probes so far)
    std::size_t batch_left = 0;  // results of the current batch still to come
    std::vector<std::vector<double>> trial_cvs;
    std::vector<double> metrics;
    std::vector<double> values;  // what the legacy modes' probes are judged by
    std::size_t trials_left = 0;
    std::vector<double> probabilities;
    std::int64_t chosen = -1;
    std::int64_t tau2_task = -1;
    std::chrono::steady_clock::time_point started;
  };
  std::vector<double> cvs_of(const engines::SegmentResult& r,
                             const features::Projection& projection) const;
  engines::SegmentTask trial_task(const config::SwarmOptions& o, std::size_t i) const;
  std::vector<engines::SegmentTask> next_batch(const config::SwarmOptions& o);
  engines::SegmentTask tau2_task(const config::SwarmOptions& o, std::int64_t& next_task_id);
  Step after_batch(const config::SwarmOptions& o, std::int64_t& next_task_id);
  FinishedCycle finish(const config::SwarmOptions& o, Anchor candidate, store::CycleOutcome outcome,
                       std::int64_t steps, double tau2_metric,
                       std::optional<engines::SegmentResult> tau2);
  // unfold before its phase switch judges by the weighted score, everything else by progress.
  static bool scored(const config::SwarmOptions& o, std::int64_t cycle);
  double value_of(const config::SwarmOptions& o, const Anchor& a, std::int64_t cycle) const;

  int index_;
  Anchor anchor_;
  std::vector<double> start_cvs_;
  ProgressMetric metric_;
  std::int64_t cycle_;
  std::vector<CvBound> bounds_;
  ConvergenceFunction convergence_function_;
  std::int64_t path_steps_;
  ChainMemory memory_;
  int batch_ = 1;
  bool done_;
  std::optional<Running> running_;
};

}  // namespace trails::swarm
