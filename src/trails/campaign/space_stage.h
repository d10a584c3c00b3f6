// The learned CV space of a built-in campaign (space_mode pca | tica; Trails-MD rows 65-66,
// 73-76, 94): the features are the particle coordinates, the learned space has len(n_bins)
// dimensions. Each iteration's frames feed one RunningMoments block (walker segments with exact
// frame counts); the bounded training memory keeps a pruned list of such blocks; on a retrain
// (RetrainController) PCA / TICA is fitted on the merged memory, every stored frame is
// re-projected and the grid box becomes the data bounds ±10 % of their span.
// Everything that carries across iterations is in state(), so a resumed campaign reproduces the
// uninterrupted one bit for bit. Projection is row-wise in a fixed summation order, so a frame's
// learned CVs do not depend on how many frames are projected together.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trails/analysis/linear_projection.h"
#include "trails/analysis/moments.h"
#include "trails/analysis/retraining.h"
#include "trails/binning/uniform_grid.h"
#include "trails/campaign/frame_history.h"
#include "trails/config/campaign_config.h"

namespace trails::campaign {

class SpaceStage {
 public:
  // n_features: coordinates per frame; dim: learned dimension (len(n_bins)).
  SpaceStage(const config::CampaignConfig& config, int n_features);

  int n_features() const { return d_; }
  int dim() const { return k_; }
  bool has_model() const { return projection_.has_value(); }
  std::int64_t space_version() const { return version_; }  // fits so far

  // One iteration's features (Σ spans × n_features, walker-major, the FrameHistory order):
  // updates the memory, retrains if the policy says so, and returns the iteration's learned
  // CVs (Σ spans × dim). After it, retrained() tells whether all history was re-projected.
  std::vector<double> add_iteration(std::int64_t iteration,
                                    std::span<const FrameHistory::WalkerSpan> spans,
                                    std::span<const double> features);
  bool retrained() const { return retrained_; }

  // Resume, after restore(): the stored features of every committed iteration, in order (no
  // fitting; the training memory's moments are recomputed from them).
  void restore_features(std::int64_t iteration, std::span<const FrameHistory::WalkerSpan> spans,
                        std::span<const double> features);

  // Calls f(iteration, spans, learned CVs) for every stored iteration block, in order, in the
  // current space (to rebuild the history and bins after a retrain or on resume).
  template <class F>
  void for_each_projected_block(F&& f) const {
    for (const auto& b : blocks_) f(b.iteration, std::span(b.spans), project(b.features));
  }
  // The grid of the current space: data bounds ±10 % span of the last fit's projections.
  binning::UniformGrid grid(const std::vector<int>& n_bins) const;
  // The features (coordinates) of a global frame index.
  std::span<const double> features_of(std::int64_t global) const;

  // Compact JSON: the model (flat vector), grid box, controller and the memory's iteration list
  // (its moments are recomputed from the features on resume, so the state stays O(d k)).
  nlohmann::json state() const;
  void restore(const nlohmann::json& state);

  const analysis::LinearProjection& projection() const { return *projection_; }

 private:
  struct Block {
    std::int64_t iteration;
    std::int64_t first;  // global index of its first frame
    std::vector<FrameHistory::WalkerSpan> spans;
    std::vector<double> features;
  };
  void append_block(std::int64_t iteration, std::span<const FrameHistory::WalkerSpan> spans,
                    std::span<const double> features);
  analysis::RunningMoments block_moments(const Block& b) const;
  std::optional<double> score(const analysis::RunningMoments& m) const;  // VAMP-2 of the model
  void fit(const analysis::RunningMoments& training);
  std::vector<double> project(std::span<const double> features) const;

  std::string mode_;
  config::LearnedSpaceConfig options_;
  std::uint64_t seed_;
  int d_, k_;
  analysis::RetrainController controller_;
  std::vector<Block> blocks_;  // every iteration's features (history is never pruned)
  // Training memory: per-iteration moments, pruned (anchor + random middle + recent quarter).
  std::vector<std::int64_t> memory_iterations_;
  std::vector<analysis::RunningMoments> memory_;
  std::int64_t first_block_frames_ = 0;
  std::optional<analysis::LinearProjection> projection_;
  std::vector<double> lo_, hi_;
  std::int64_t version_ = 0;
  bool retrained_ = false;
};

}  // namespace trails::campaign
