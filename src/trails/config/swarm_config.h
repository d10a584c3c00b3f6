// The typed, validated configuration of a swarm path-generation run (`trails swarm`,
// docs/swarm.md): PathGennie's `pathgennie:` keys plus Trails' own `engine:`, `system:` and
// `cvs:` blocks, read by the same key table as campaigns. Produced only by load_swarm_config();
// strict like campaign configs: every problem is reported at once as "FILE:LINE:COL: key: what to
// do" in one ConfigError, and nothing is created.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/config/md_system_config.h"

namespace trails::config {

enum class SwarmMode { Escape, Target };  // the progress metric (docs/swarm.md, "Progress")
// PathGennie's legacy drivers (docs/swarm.md, "Legacy modes"): first-improvement probing in
// batches instead of softmax selection. unbind: escape metric against a ratchet; fold: target
// metric against the current anchor; unfold: unbind's rule on a weighted score first, then on
// the weighted distance from the start.
enum class Probing { None, Unbind, Fold, Unfold };
enum class EscapeMetric { DistanceFromStart, Cv0 };

// A PathGennie Python function (docs/swarm.md, "From a PathGennie input.yaml"):
// module.function(coords_Å (n_atoms, 3), **kwargs), run by the swarm's one Python worker.
struct PythonFunction {
  std::filesystem::path module;  // absolute
  std::string function;
  nlohmann::json kwargs = nlohmann::json::object();
  std::string block;     // "projection" or "convergence", for messages
  std::string location;  // "FILE:LINE:COL: BLOCK.function" of the block, for messages
};

// `projection: {model: RUN_DIR, iteration: N}` (docs/swarm.md, "A learned model as the CV"): the
// learned-space model of a campaign's run directory, current at its committed iteration N
// (default: the last), projected through the features it was trained on.
struct LearnedProjection {
  std::filesystem::path run_dir;  // absolute
  std::optional<std::int64_t> iteration;
  std::string location;  // "FILE:LINE:COL: projection.model", for messages
};

// PathGennie's cycle (docs/swarm.md, "The cycle"), one chain or `paths` independent chains.
struct SwarmOptions {
  SwarmMode mode = SwarmMode::Escape;  // escape and unbind: Escape; target and fold: Target
  Probing probing = Probing::None;
  int probe_batch = 0;  // probes run at once in the legacy modes; 0: one per slot
  int tau1_steps = 0;   // τ1: steps of each trial (fresh velocities)
  int tau2_steps = 0;   // τ2: steps of the chosen trial's extension (velocities continued)
  int max_trial = 0;    // N: trials per cycle
  int max_cycle = 0;    // cycle cap per chain
  double sigma = 0.1;   // softmax temperature over min–max normalised progress
  std::optional<double> temperature;  // K: velocity draws and thermostat (molecular engines)
  int save_freq = 10;                 // reactive-path frame every save_freq cycles (+ the last)
  bool save_subframes = false;        // replay the chosen τ1 + τ2 of every cycle (docs/swarm.md)
  int subframe_stride = 1;            // a subframe every this many steps (divides τ1 and τ2)
  std::vector<double> target_projection;  // ξ*, target mode
  EscapeMetric escape_metric = EscapeMetric::DistanceFromStart;
  bool reject_worse_tau2 = false;
  bool reject_worse_anchor = false;
  std::vector<int> devices;  // logical device indices; empty: one unbound device
  int workers_per_device = 1;
  std::uint64_t seed = 0;  // master seed
  std::optional<std::string> profile;
  int paths = 1;  // independent chains on one device pool (multi-path fill)
  // unfold mode: s = Σ w_i (ξ_i − ξ0_i) for the first unfold_phase_cycles cycles, then the
  // distance ‖w ⊙ (ξ − ξ0)‖ (one weight per CV; docs/swarm.md, "Legacy modes").
  std::vector<double> unfold_weights;
  int unfold_phase_cycles = 1000;
  // convergence: stop a chain when its anchor reaches it (none: run to max_cycle).
  std::optional<double> distance_to_target;   // target mode: ‖ξ − ξ*‖ ≤ this
  std::optional<double> metric_at_least;      // escape mode: progress metric ≥ this
  std::map<std::string, double> cv_at_most;   // CV name → bound: that CV ≤ bound
  std::map<std::string, double> cv_at_least;  // CV name → bound: that CV ≥ bound
  int min_cycles = 0;                         // the tests above count from this cycle on
  // The legacy stall rules (docs/swarm.md, "Stopping"): none = off.
  std::optional<int> stall_cycles;  // best progress not improved by > stall_tolerance
  double stall_tolerance = 1e-3;
  std::optional<int> stagnation_window;  // every change < stagnation_tolerance over the window
  double stagnation_tolerance = 0.01;
  // PathGennie's `projection:` (the CVs, instead of `cvs:`) and `convergence: {module,
  // function}` (combined with the declarative tests above: all must hold).
  std::optional<PythonFunction> projection;
  std::vector<double> projection_periods;  // projection.periodic: per component, 0 = none
  std::optional<PythonFunction> convergence_function;
  // A stored learned model as the CVs, instead of `cvs:` or a Python projection.
  std::optional<LearnedProjection> learned_projection;
};

// "escape", "target", "unbind", "fold" or "unfold": pathgennie.mode as written.
std::string mode_name(const SwarmOptions& o);

struct SwarmConfig {
  std::filesystem::path config_file;  // absolute
  std::filesystem::path workdir;      // the run directory, absolute
  SwarmOptions swarm;
  // The engine, system, cvs and execution blocks, read and checked by the campaign key table
  // (md_system_config.h); random_seed is pathgennie.seed.
  MdSystemConfig md;
  // Keys accepted without effect, as a campaign's notes (CampaignConfig::notes).
  std::vector<std::string> notes;

  EngineSpec engine_spec() const { return md.engine_spec(); }
  // One start point per chain (built-in engine); empty: the engine's default start.
  std::vector<std::vector<double>> start_points() const { return md.system.start; }

  // Canonical JSON of everything that changes results (not workdir, not devices or
  // workers_per_device, not max_cycle): its digest guards --resume.
  nlohmann::json result_relevant_json() const;
  // Every key with its value, for the ledger and the banner.
  nlohmann::json effective_json() const;
};

SwarmConfig load_swarm_config(const std::filesystem::path& file);

// True when `file` is a mapping with a top-level `pathgennie:` block: a swarm configuration, for
// `trails check` and `trails run` to tell apart from a campaign's. False for anything that does
// not read as such (the campaign loader then reports the file's problems).
bool is_swarm_config(const std::filesystem::path& file);

}  // namespace trails::config
