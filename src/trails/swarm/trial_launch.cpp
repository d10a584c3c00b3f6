#include "trails/swarm/trial_launch.h"

#include <algorithm>

#include "trails/core/rng.h"

namespace trails::swarm {

CycleSeeds draw_cycle_seeds(std::uint64_t master_seed, int chain, std::int64_t cycle,
                            int n_trials) {
  // Chain k runs on master seed seed + k, so it is the same chain as a one-path run with that
  // seed (docs/swarm.md, "Reproducibility").
  core::Rng rng = core::Rng::stream(master_seed + static_cast<std::uint64_t>(chain), "swarm-cycle",
                                    static_cast<std::uint64_t>(cycle));
  CycleSeeds seeds;
  seeds.trials.reserve(static_cast<std::size_t>(n_trials));
  for (int i = 0; i < n_trials; ++i) seeds.trials.push_back(rng.next_u64());
  seeds.selection_u = rng.uniform();
  seeds.tau2 = rng.next_u64();
  return seeds;
}

void TrialLaunch::open(ChainCycle& c) const {
  c.seeds = draw_cycle_seeds(o_.seed, chain_, c.cycle, o_.max_trial);
  c.first_task = c.next_task_id;
  c.trials.resize(static_cast<std::size_t>(o_.max_trial));
  c.trial_cvs.resize(c.trials.size());
  c.metrics.assign(c.trials.size(), kNoValue);
  c.values.assign(c.trials.size(), kNoValue);
  c.started = std::chrono::steady_clock::now();
  // Trial i's task id is first_task + i (Chain::owns_trial): the cycle reserves N ids now.
  c.batch = o_.probing == config::Probing::None ? o_.max_trial : std::max(1, c.batch);
  c.next_task_id += o_.max_trial;
}

engines::SegmentTask TrialLaunch::trial_task(const ChainCycle& c, std::size_t i) const {
  engines::SegmentTask t;
  t.task_id = c.first_task + static_cast<std::int64_t>(i);
  t.iteration = c.cycle;
  t.walker = static_cast<std::int64_t>(i);
  t.start = anchor_.state;
  t.start.velocities.clear();  // a trial draws fresh Maxwell–Boltzmann velocities
  t.steps = o_.tau1_steps;
  t.stride = o_.tau1_steps;  // one frame: the trial's end
  t.seed = c.seeds.trials[i];
  return t;
}

void TrialLaunch::run(ChainCycle& c) {
  if (c.trials.empty()) open(c);
  const std::size_t end =
      std::min(c.trials.size(), c.submitted + static_cast<std::size_t>(c.batch));
  for (std::size_t i = c.submitted; i < end; ++i) c.tasks.push_back(trial_task(c, i));
  c.batch_left = end - c.submitted;
  c.submitted = end;
  c.next = CycleStep::Wait;
}

}  // namespace trails::swarm
