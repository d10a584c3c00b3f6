// MSM-guided spawner (compat:msm-spawner) over the campaign's candidate pool.
// Guided (an MSM exists): each pool frame's microstate m(x) under the clustering of the latest
// applied MSM build (after a refit that is the new clustering, never a stale one:
// fix:stale-latent-space); per active state i: s_i = sqrt(sum_j T_ij (1 - T_ij) / (c_i + 1)),
// sigma_i = s_i / mean(s_j > 0) (1 without msm.spawn_uncertainty), lev_i = sum_{r=1..L}
// |psi_{r+1}(i)| (L = spawn_leverage; 1 when L = 0), score b_i = pi_i lev_i sigma_i + alpha /
// sqrt(c_i + 1); frames of inactive ("frontier") microstates get b = alpha. Frame weight = b_{m(x)}
// / (pool frames in m(x)). Fallback (no MSM yet): k-means (k = min(spawning.voronoi_clusters,
// frames), 100 iterations, seed random_seed) on the pool, frame weight 1/c^2 for a cluster of
// population c. Target mode divides weights by ||x - target|| + 1e-10. W frames are drawn by
// weighted_choice from the iteration's "spawn" stream. Labels of pool frames are cached per
// clustering version, so between refits a call assigns only the new frames.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "trails/core/rng.h"
#include "trails/features/frame_history.h"
#include "trails/msm/msm_stage.h"
#include "trails/spawners/spawner.h"

namespace trails::spawners {

struct MsmSpawnerOptions {
  double alpha = 1.0;           // msm.spawn_alpha
  double leverage = 1.0;        // msm.spawn_leverage (integer part: eigenvectors summed)
  bool uncertainty = true;      // msm.spawn_uncertainty
  int fallback_clusters = 150;  // spawning.voronoi_clusters: k of the fallback k-means
  std::uint64_t seed = 0;       // random_seed: the fallback k-means seed
  std::optional<std::vector<double>> target;  // search_mode target: the target point
};

class MsmSpawner final : public Spawner {
 public:
  explicit MsmSpawner(MsmSpawnerOptions options);

  std::vector<std::int64_t> choose(const SpawnPool& pool, int n, core::Rng& rng) override {
    return choose(pool.history, pool.first, pool.msm, n, rng);
  }
  // n global frame indices from the pool [pool_first, history.frames()).
  std::vector<std::int64_t> choose(const features::FrameHistory& history, std::int64_t pool_first,
                                   const msm::MsmBuild* msm, int n, core::Rng& rng);
  // Its labels are a cache rebuilt from the model: nothing carries across iterations.
  nlohmann::json state() const override { return nullptr; }
  void restore(const nlohmann::json&) override {}

  // The weight of each pool frame [pool_first, history.frames()) that choose() draws from
  // (guided or fallback, target mode applied); sets used_fallback().
  std::vector<double> frame_weights(const features::FrameHistory& history, std::int64_t pool_first,
                                    const msm::MsmBuild* msm);

  bool used_fallback() const { return used_fallback_; }

 private:
  std::vector<double> guided_weights(const features::FrameHistory& history, std::int64_t pool_first,
                                     const msm::MsmBuild& msm);
  std::vector<double> fallback_weights(const features::FrameHistory& history,
                                       std::int64_t pool_first);

  MsmSpawnerOptions options_;
  std::vector<int> labels_;  // microstate of global frames [0, labels_.size())
  const analysis::ClusterModel* labelled_with_ = nullptr;
  std::shared_ptr<const analysis::ClusterModel> keep_;  // keeps labelled_with_ alive
  bool used_fallback_ = false;
};

}  // namespace trails::spawners
