// The in-loop MSM (compat:in-loop-msm, compat:convergence-monitor), overlapped with MD and
// incremental.
//
// Order: after spawning of iteration n, when n % cadence == 0 and the campaign holds at least
// min_frames frames, start() launches build n; join() — called once the next iteration's MD
// has finished (or when the campaign ends) — waits for it and applies it to the convergence
// monitor. With overlap the build runs on a background thread during iteration n+1's MD; without
// it, the build runs inside start() but is still applied only at join(), so both orders produce
// the same bits. Builds read only their own snapshot of the frames and the stage's own model
// state, which the main thread does not touch between start() and join().
//
// Incremental: labels and count matrices (one per lag of the lag ladder) of the current
// clustering are kept; a build assigns only the frames that arrived since the previous build and
// adds their counts (walker segments are independent, so this is exact). A refit — the first
// build, a change of k, or the campaign's frames having doubled since the last fit — reclusters
// all frames and recounts: the only O(history) event, amortised O(1) per frame.
//
// Resume: state() holds the clustering of the last applied build, the frame count it covered,
// the monitor (streak and its baselines, fix:monitor-baselines-checkpointed) and the pending build;
// restore() reassigns the covered frames to those centres and recounts (labels are nearest-centre,
// ties to the lowest index, so they are the same labels), then restarts the pending build.
#pragma once

#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "trails/analysis/clustering.h"
#include "trails/analysis/counting.h"
#include "trails/config/campaign_config.h"
#include "trails/features/frame_history.h"

namespace trails::msm {

struct MsmBuild {
  std::int64_t iteration = 0;  // the iteration whose frames (and all before) it covers
  std::int64_t frames = 0;     // frames covered
  bool refit = false;          // this build reclustered all frames
  int lag = 0;
  int n_microstates = 0;
  std::vector<int> active_set;     // microstate ids of the largest strongly connected set
  std::vector<double> pi;          // stationary distribution on the active set
  Eigen::MatrixXd T;               // reversible MLE on the active set
  Eigen::MatrixXd C;               // sliding counts on the active set
  std::vector<double> timescales;  // frames; at most n_timescales, at most n_active - 1
  bool bayesian = false;           // estimator: bayesian (effective counts, posterior samples)
  std::vector<double> timescale_errors;  // Bayesian: std of each timescale over the samples
  // PCCA+ (msm.n_metastable = m, when 2 <= m < n_active): fuzzy memberships n_active x m, crisp
  // set per active state, and the sum of pi over each crisp set (Trails-MD's populations).
  int n_metastable = 0;
  Eigen::MatrixXd memberships;
  std::vector<int> metastable_assignments;
  std::vector<double> metastable_populations;
  double crispness = 0.0;
  std::optional<double> vamp2;  // sum of squared eigenvalues of T (>= 1)
  std::vector<int> its_lags;
  std::vector<std::vector<double>> its;  // per lag of the ladder (NaN where too few states)
  bool mle_converged = true;
  std::int64_t min_segment = 0;  // shortest segment (frames) used
  std::string note;              // why there is no model (fewer than 2 active states), or ""
  double build_s = 0.0;          // wall time of the build itself
  // For the MSM spawner (compat:msm-spawner): the clustering this model was estimated on (its
  // version counts refits), the frames per active state in the counted data (Trails-MD's
  // counts_per_state), and right eigenvectors psi_2.. of T (n_active x n; normalised sum_i pi_i
  // psi_i^2 = 1).
  std::shared_ptr<const analysis::ClusterModel> clustering;
  std::int64_t clustering_version = 0;
  std::vector<double> counts_per_state;
  Eigen::MatrixXd eigenvectors;
  // Filled by join(): convergence monitor after this build.
  bool lag_guard_ok = true;
  bool criteria_met = false;
  std::string criteria;  // each criterion's verdict, "; "-separated (also in the log line)
  int streak = 0;
  bool converged = false;
  std::string reason;

  nlohmann::json to_json() const;  // the ledger's msm_builds row payload (docs/file-formats.md)
};

class MsmStage {
 public:
  MsmStage(const config::MsmConfig& config, std::uint64_t seed, int cv_dim, bool overlap);
  ~MsmStage();
  MsmStage(const MsmStage&) = delete;
  MsmStage& operator=(const MsmStage&) = delete;

  bool enabled() const { return config_.enabled; }

  // Records one committed iteration's walker segments (its frames are in `history`).
  void observe(std::int64_t first_frame,
               const std::vector<features::FrameHistory::WalkerSpan>& spans);

  // Starts build `iteration` if it is due. `history` must not change until join().
  void start(std::int64_t iteration, const features::FrameHistory& history);
  bool pending() const { return pending_.has_value(); }

  // Waits for the pending build and applies it to the monitor; nullopt if none was pending.
  // wait_s receives how long this call blocked.
  std::optional<MsmBuild> join(double* wait_s = nullptr);

  // The latest applied build (the MSM spawner's model); nullptr before the first one.
  const MsmBuild* latest() const { return latest_ ? &*latest_ : nullptr; }

  bool converged() const { return converged_; }
  const std::string& reason() const { return reason_; }

  nlohmann::json state() const;
  // Rebuilds the model state of `state` over `history` and restarts its pending build.
  void restore(const nlohmann::json& state, const features::FrameHistory& history);

  // Learned spaces: the version of the space the history's points are in. A build after a
  // change reclusters from scratch (no warm start from centres of another space).
  void set_space_version(std::int64_t version) { space_version_ = version; }
  // True when the latest model's clustering is of an older space than the history's
  // (fix:stale-latent-space).
  bool stale() const { return latest_.has_value() && fit_space_version_ != space_version_; }
  // Builds `iteration` now, in the current space, and applies it (no pending build allowed);
  // start(iteration) is then a no-op. For a retrain: the MSM spawner must not spawn from a
  // clustering of the old space.
  MsmBuild rebuild_now(std::int64_t iteration, const features::FrameHistory& history);

 private:
  struct Segment {
    std::int64_t first;
    std::int64_t n_frames;
  };
  MsmBuild build(std::int64_t iteration, const features::FrameHistory& history,
                 std::size_t n_segments);
  void launch(std::int64_t iteration, const features::FrameHistory& history, bool overlap);
  nlohmann::json model_json(std::int64_t iteration) const;
  void refit(const features::FrameHistory& history, std::size_t n_segments, std::int64_t frames);
  void count_segments(std::size_t from, std::size_t to, const features::FrameHistory& history);
  void reset_effective(int k);  // empty accumulators for k microstates (Bayesian only)
  void apply_monitor(MsmBuild& b);

  config::MsmConfig config_;
  std::uint64_t seed_;
  int cv_dim_;
  bool overlap_;
  std::vector<int> lags_;  // msm.lagtime first, then the ladder's other lags

  std::vector<Segment> segments_;  // every observed walker segment (length 1 included)
  // Model state (touched by builds only).
  analysis::ClusterModel centres_;                                // 0 x dim before the first fit
  std::shared_ptr<const analysis::ClusterModel> shared_centres_;  // snapshot handed to builds
  std::vector<double> histogram_;         // frames per microstate over counted segments
  std::vector<std::vector<int>> dtrajs_;  // labels of segments_[0..counted_segments_)
  std::vector<Eigen::MatrixXd> counts_;   // per lags_
  // estimator bayesian: effective counts per lags_, accumulated segment by segment like counts_
  std::vector<analysis::EffectiveCountAccumulator> effective_;
  std::size_t counted_segments_ = 0;
  std::int64_t fit_frames_ = 0;
  std::int64_t n_refits_ = 0;
  std::int64_t space_version_ = 0;        // of the history's points
  std::int64_t fit_space_version_ = 0;    // of centres_
  std::optional<std::int64_t> built_at_;  // iteration of the last build started
  int fit_target_k_ = 0;                  // min(n_microstates, usable frames) at the last fit

  // Applied-state snapshot for state(): model as of the last applied build.
  nlohmann::json applied_model_ = nullptr;
  nlohmann::json pending_model_ = nullptr;  // model after the pending build (set at build end)
  std::optional<std::int64_t> pending_;
  std::future<MsmBuild> future_;
  std::optional<MsmBuild> ready_;   // non-overlapped build, waiting for join()
  std::optional<MsmBuild> latest_;  // last applied build
  void estimate(MsmBuild& b) const;

  // Monitor (compat:convergence-monitor) with its baselines.
  int streak_ = 0;
  bool converged_ = false;
  std::string reason_;
  std::vector<double> prev_timescales_;
  std::optional<double> prev_vamp2_;
  std::vector<double> prev_populations_;
};

}  // namespace trails::msm
