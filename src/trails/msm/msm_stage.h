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

#include "trails/analysis/bayesian_msm.h"
#include "trails/analysis/clustering.h"
#include "trails/analysis/counting.h"
#include "trails/config/campaign_config.h"
#include "trails/features/frame_history.h"
#include "trails/msm/convergence_monitor.h"
#include "trails/msm/msm_build.h"

namespace trails::msm {

// Threads of the in-loop build's clustering and estimate: it overlaps MD, which owns the cores,
// and its results do not depend on the thread count.
inline constexpr int kMsmThreads = 1;

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
  // explored_fraction: occupied bins / bins of the campaign grid at that iteration, for the
  // monitor's exploration floor (msm.min_explored_fraction).
  void start(std::int64_t iteration, const features::FrameHistory& history,
             double explored_fraction);
  bool pending() const { return pending_.has_value(); }

  // Waits for the pending build and applies it to the monitor; nullopt if none was pending.
  // wait_s receives how long this call blocked.
  std::optional<MsmBuild> join(double* wait_s = nullptr);

  // The latest applied build (the MSM spawner's model); nullptr before the first one.
  const MsmBuild* latest() const { return latest_ ? &*latest_ : nullptr; }

  bool converged() const { return monitor_.converged(); }
  const std::string& reason() const { return monitor_.reason(); }

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
  MsmBuild rebuild_now(std::int64_t iteration, const features::FrameHistory& history,
                       double explored_fraction);

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
  // msm_estimate.cpp: the model of build b from the kept counts.
  void estimate(MsmBuild& b) const;
  void estimate_model(MsmBuild& b, const Eigen::MatrixXd& counts) const;  // >= 2 active states
  Eigen::VectorXd bayesian_estimate(MsmBuild& b, const Eigen::MatrixXd& counts, int nts) const;
  // The Bayesian MSM of effective `counts` (all microstates) on `active_set` at `lag`.
  analysis::BayesianMsm bayesian_at(const Eigen::MatrixXd& counts,
                                    const std::vector<int>& active_set, int lag, int nts,
                                    std::uint64_t seed) const;
  std::vector<double> its_errors_at(const MsmBuild& b, const Eigen::MatrixXd& counts,
                                    int lag) const;
  Eigen::MatrixXd counts_at(std::size_t lag_index) const;  // of lags_[lag_index]

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
  double pending_explored_ = 1.0;  // explored fraction at the pending build's iteration
  std::future<MsmBuild> future_;
  std::optional<MsmBuild> ready_;   // non-overlapped build, waiting for join()
  std::optional<MsmBuild> latest_;  // last applied build

  ConvergenceMonitor monitor_;  // applied to each build at join()
};

}  // namespace trails::msm
