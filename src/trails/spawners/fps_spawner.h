// FPS spawner (compat:fps-spawner): a greedy max–min farthest-point set of W pool frames
// (analysis::farthest_points) from a seed frame: uniform at random (explore) or the frame nearest
// to the target (search_mode target). A pool of at most W frames returns all of them, repeated in
// order to fill W walkers (Trails-MD returns fewer walkers: fix:fps-small-pool). The pool is the
// campaign's (history_window honoured, global indices returned). Stateless.
#pragma once

#include <optional>
#include <vector>

#include "trails/spawners/spawner.h"

namespace trails::spawners {

struct FpsOptions {
  std::optional<std::vector<double>> target;  // search_mode target: the target point
};

class FpsSpawner final : public Spawner {
 public:
  explicit FpsSpawner(FpsOptions options) : options_(std::move(options)) {}

  std::vector<std::int64_t> choose(const SpawnPool& pool, int n, core::Rng& rng) override {
    return choose(pool.history, pool.first, n, rng);
  }
  std::vector<std::int64_t> choose(const features::FrameHistory& history, std::int64_t first, int n,
                                   core::Rng& rng) const;

  nlohmann::json state() const override { return nullptr; }
  void restore(const nlohmann::json& /*state*/) override {}

 private:
  FpsOptions options_;
};

}  // namespace trails::spawners
