// The cycle a swarm chain is working on, as its elements see it (private to the swarm module;
// docs/architecture.md, "Swarm elements"): the cycle's seeds and trials, what the elements
// decided so far, the result being taken, and which element runs next. One ChainCycle lives
// from a cycle's first trial task to its FinishedCycle; what carries across cycles lives in the
// elements (docs/swarm.md, "The cycle").
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "trails/core/element.h"
#include "trails/engines/segment.h"
#include "trails/store/cycle_record.h"

namespace trails::swarm {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

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

// A finished cycle waiting for its turn to be committed.
struct FinishedCycle {
  // The cycle's own fields; the carried ones (path_steps, the ratchet, the stall rules) are in
  // `state`, which the commit writes into the stored record.
  store::CycleRecord record;
  nlohmann::json state;  // the chain's checkpoint clients' blobs, key -> value
  std::vector<engines::SegmentResult> trials;  // the trials that ran, by index (0, 1, ...)
  std::vector<std::uint64_t> trial_seeds;      // their seeds
  std::optional<engines::SegmentResult> tau2;  // none: no extension ran (unbind's fallback)
  std::uint64_t tau2_seed = 0;
  int chains_running = 0;  // chains with cycles left when this one finished (progress line)
};

// The chain's elements in the order of the cycle; Wait: the cycle waits for results.
enum class CycleStep { Launch, Score, Select, Extend, Guard, Stop, Record, Wait };

struct ChainCycle {
  std::int64_t cycle = 0;
  int batch = 1;  // probes per batch (the legacy modes); every trial at once otherwise
  CycleSeeds seeds;
  std::int64_t first_task = 0;    // trial i is task first_task + i
  std::int64_t next_task_id = 0;  // the next free task id (the driver's counter, lent)
  std::vector<std::optional<engines::SegmentResult>> trials;
  std::size_t submitted = 0;   // trials handed out (all of them, or the probes so far)
  std::size_t batch_left = 0;  // results of the current batch still to come
  std::vector<std::vector<double>> trial_cvs;
  std::vector<double> metrics;
  std::vector<double> values;  // what the legacy modes' probes are judged by
  std::vector<double> probabilities;
  std::int64_t chosen = -1;
  std::int64_t tau2_task = -1;
  std::chrono::steady_clock::time_point started;

  // The result being taken (a trial's or the extension's).
  std::optional<engines::SegmentResult> arrived;
  // Tasks to hand out: the next batch of trials, or the extension.
  std::vector<engines::SegmentTask> tasks;

  // The candidate for the next anchor and how it came about (the extension, or the legacy
  // modes' best probe end); the guard may keep the old anchor instead.
  std::optional<Anchor> candidate;
  store::CycleOutcome outcome = store::CycleOutcome::Trial;
  std::int64_t steps = 0;  // MD steps the candidate adds to the path
  double tau2_metric = kNoValue;
  std::optional<engines::SegmentResult> tau2;

  bool converged = false;
  std::string stop;  // a stall rule that ended the chain, or ""
  std::optional<FinishedCycle> finished;

  CycleStep next = CycleStep::Launch;
};

using ChainElement = core::Element<ChainCycle>;

}  // namespace trails::swarm
