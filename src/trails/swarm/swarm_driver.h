// The swarm driver (`trails swarm`, docs/swarm.md): PathGennie's cycle for `paths` independent
// chains on one executor. Per chain and cycle: N trials of τ1 steps from the anchor with fresh
// velocities, softmax selection over their progress, τ2 steps of the chosen trial with its
// velocities, the reject guards, the convergence test. While one chain's τ2 runs, the slots take
// other chains' trials (multi-path fill). Every random number of chain k's cycle c comes from
// the stream (seed + k, "swarm-cycle", c), drawn in PathGennie's order (N trial seeds, the
// selection draw, the τ2 seed), and results are bound to task ids, so a chain is bitwise the same
// on any number of devices or workers, alone or beside other chains, interrupted or not.
// Each chain-cycle is committed to the run store (RUN_DIR) in (cycle, chain) order.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "trails/config/swarm_config.h"

namespace trails::swarm {

struct CycleReport {
  int chain = 0;
  std::int64_t cycle = 0;
  double anchor_metric = 0.0;
  bool converged = false;
  int chains_running = 0;
  std::int64_t cycles_committed = 0;  // all chains, this run and before
  std::int64_t cycles_total = 0;      // the cap: paths × max_cycle
  double elapsed_s = 0.0;             // since this invocation started
};

struct ChainOutcome {
  int chain = 0;
  std::int64_t cycles = 0;  // committed cycles
  bool converged = false;
  double anchor_metric = 0.0;
  std::string stop;  // "stalled" or "stagnated" when a stall rule ended the chain
};

struct SwarmOutcome {
  std::vector<ChainOutcome> chains;
  std::int64_t cycles_run = 0;  // in this invocation
  double wall_s = 0.0;          // the whole invocation
  double loop_s = 0.0;          // the cycles alone: first trial submitted -> last commit
};

class SwarmProgress {
 public:
  virtual ~SwarmProgress() = default;
  virtual void started(const std::vector<std::string>& banner) = 0;
  virtual void cycle(const CycleReport& report) = 0;
  virtual void finished(const SwarmOutcome& outcome) = 0;
};

// Runs (or, with resume, continues) the swarm of `config` in config.workdir. Throws ConfigError
// / InputError (exit 2) for bad input with nothing written, EngineError when every trial of a
// cycle fails, core::Interrupted on a stop signal (committed cycles are kept).
SwarmOutcome run_swarm(const config::SwarmConfig& config, bool resume, SwarmProgress& progress);

// `trails check` of a swarm configuration: the checks run_swarm makes before it writes anything
// (Python imports and calls on the start structure, the engine's preparation, the CVs and their
// per-CV keys, the devices), with the engine prepared under `scratch` (the caller's temporary
// directory) so config.workdir is not touched. Throws as run_swarm does.
void check_swarm(const config::SwarmConfig& config, const std::filesystem::path& scratch);

}  // namespace trails::swarm
