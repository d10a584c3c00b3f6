// LOF spawner (compat:lof-spawner): favours outlying frames of the candidate pool. Each pool frame
// gets w_i = LOF_i - min LOF (analysis::local_outlier_factor with k = min(lof_neighbors, N - 1);
// the most inlying frame gets 0); in target mode w_i *= p_i with p_i = (1 / (||x_i - t|| + 1e-10))
// normalised. W frames are drawn by weighted_choice (without replacement when possible). A pool
// of one frame returns it W times. The pool is the campaign's (history_window honoured, global
// indices returned: fix:history-window-every-spawner). The scores are kept incrementally by a
// LofIndex (lof_index.h): bitwise the full recomputation's, at a cost that follows what changed.
// Nothing is checkpointed: the index is rebuilt from the pool at the first spawn after a resume
// (or after reset_memory(), when the space is replaced), with the same bits.
#pragma once

#include <optional>
#include <vector>

#include "trails/spawners/lof_index.h"
#include "trails/spawners/spawner.h"

namespace trails::spawners {

struct LofOptions {
  int neighbors = 20;                         // spawning.lof_neighbors
  std::optional<std::vector<double>> target;  // search_mode target: the target point
};

class LofSpawner final : public Spawner {
 public:
  explicit LofSpawner(LofOptions options);

  std::vector<std::int64_t> choose(const SpawnPool& pool, int n, core::Rng& rng) override {
    return choose(pool.history, pool.first, n, rng);
  }
  std::vector<std::int64_t> choose(const features::FrameHistory& history, std::int64_t first, int n,
                                   core::Rng& rng);
  // The weight of each pool frame [first, history.frames()) that choose() draws from.
  std::vector<double> frame_weights(const features::FrameHistory& history, std::int64_t first);
  void reset_memory() override { index_.reset(); }

  nlohmann::json state() const override { return nullptr; }
  void restore(const nlohmann::json& /*state*/) override {}

 private:
  LofOptions options_;
  LofIndex index_;
};

}  // namespace trails::spawners
