// The arithmetic of `trails advise` (docs/advise.md): where a campaign's wall time went, per
// iteration, and which execution settings would raise its MD throughput, with the expected gain
// from a simple model fitted to the measurements. Pure: no files, no clock; the caller reads
// the ledger (advise.h). All times in seconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trails::analysis {

// One walker as the ledger records it (walkers.startup_s, integrate_s, ok).
struct WalkerTiming {
  double startup_s = 0.0;
  double integrate_s = 0.0;
  bool ok = true;
};

// One committed iteration's measurements.
struct IterationTiming {
  std::int64_t iteration = 0;
  std::int64_t steps = 0;  // MD steps per walker (spawning.step in effect)
  double runner_s = 0.0;   // submit -> last result (iterations.runner_s)
  double frame_s = 0.0;    // the driver's work on the frames, without the commit (analysis_s)
  // Commit and bookkeeping between iterations: the gap since the previous commit minus
  // runner_s and frame_s; nullopt where unknown (the first iteration, after a pause or resume).
  std::optional<double> other_s;
  std::vector<WalkerTiming> walkers;
};

// How the run executed its walkers (the ledger's effective configuration).
struct ExecutionSetup {
  int slots = 1;               // walkers at once: devices × workers_per_device, else max_workers
  int devices = 0;             // 0: no device pool (spawning.max_workers unbound slots)
  int workers_per_device = 1;  // execution.workers_per_device
  bool persistent_workers = false;
  bool engine_uses_devices = false;  // a GPU engine (OpenMM), not the built-in one
  bool mps_daemon = false;           // an MPS control daemon was found at the start
  std::string backend = "local";     // execution.backend
  // Scheduler arrays: walkers per array task, and array tasks at once (max_in_flight; none:
  // every task of an iteration at once).
  int walkers_per_task = 1;
  std::optional<int> tasks_in_flight;
  std::int64_t stride = 1;  // spawning.stride: walker lengths stay multiples of it
  std::optional<std::int64_t> n_atoms;
};

struct AdviceOptions {
  double startup_target = 0.10;  // start-up at most this fraction of a walker's time
  double min_speedup = 1.10;     // recommend only changes the model expects to gain this much
  int max_workers_per_device = 8;
  std::int64_t small_system_atoms = 25000;  // below this a GPU has room for more walkers
};

// One iteration's wall time split into parts that add up to it. Walker work is slot time ÷
// slots, so start-up + integration + idle = runner_s.
struct IterationBreakdown {
  std::int64_t iteration = 0;
  std::int64_t walkers = 0;
  double wall_s = 0.0;  // runner + frame work + other (where known)
  double startup_s = 0.0;
  double integrate_s = 0.0;
  double idle_s = 0.0;  // slots × runner − busy, ÷ slots: queue wait, idle slots, dispatch
  double frame_s = 0.0;
  std::optional<double> other_s;
};

IterationBreakdown break_down(const IterationTiming& it, int slots);
// The sum of rows (other_s: the sum of the known ones, nullopt when none is known).
IterationBreakdown total_of(const std::vector<IterationBreakdown>& rows);

// The model (docs/advise.md, "The model"): an iteration of W walkers of N steps on S slots takes
//   T = ⌈W/S⌉ × (s + N × τ) + d + F × (W × N)/(W₀ × N₀) + C
// s start-up per walker (median), τ integration per step, d dispatch and imbalance (what the
// rest leaves of the measured runner time), F frame work (scales with the frames), C commit and
// bookkeeping. Fitted on the trailing iterations that ran with the last iteration's W and N, it
// gives their mean wall time back at W₀, N₀, S₀.
struct ModelFit {
  std::int64_t first_iteration = 0;
  std::int64_t last_iteration = 0;
  std::int64_t walkers = 0;  // W₀
  std::int64_t steps = 0;    // N₀
  int slots = 1;             // S₀
  double startup_s = 0.0;    // s
  double mean_startup_s = 0.0;
  double step_s = 0.0;      // τ (0: no successful walker to measure it)
  double dispatch_s = 0.0;  // d
  double frame_s = 0.0;     // F
  double other_s = 0.0;     // C (0 when unknown)
  double runner_s = 0.0;    // mean measured runner time
};

ModelFit fit_model(const std::vector<IterationTiming>& iterations, int slots);
// ⌈a / b⌉ for a ≥ 0, b > 0: waves of walkers over slots.
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

double model_iteration_s(const ModelFit& m, std::int64_t walkers, std::int64_t steps, int slots);
// MD steps per second of wall time: W × N / T.
double model_steps_per_s(const ModelFit& m, std::int64_t walkers, std::int64_t steps, int slots);
// s / (s + N × τ): the share of a walker's time spent starting up.
double startup_fraction(const ModelFit& m, std::int64_t steps);
// The model's sum with its numbers: "⌈8/2⌉ × (30 ms + 200 × 120 ns) + 1.2 ms + 0.5 ms + 5 ms
// = 127 ms per iteration: 1600 steps, 12598 steps/s".
std::string describe_model(const ModelFit& m, std::int64_t walkers, std::int64_t steps, int slots);

// A change of one configuration key with its expected gain and the arithmetic behind it.
struct Recommendation {
  std::string key;  // dotted configuration key
  std::int64_t value = 0;
  std::int64_t current = 0;
  double speedup = 1.0;    // model MD throughput after ÷ now
  std::string reason;      // why, in the measured numbers
  std::string arithmetic;  // the model's numbers, now and after
  std::string note;        // trade-offs and conditions
};

// A setting considered and not recommended, and why.
struct Remark {
  std::string key;
  std::string why;
};

struct Advice {
  ModelFit fit;
  std::vector<Recommendation> recommendations;  // best first
  std::vector<Remark> not_recommended;
  std::vector<std::string> warnings;
};

// Needs at least one iteration (InternalError otherwise).
Advice advise(const std::vector<IterationTiming>& iterations, const ExecutionSetup& setup,
              const AdviceOptions& options = {});

// "30.0 ms", "0.12 µs", "1.23 s": three significant figures in a readable unit.
std::string format_duration(double seconds);

}  // namespace trails::analysis
