// FpsSpawner: random numbers: one rng.below(pool size) for the seed frame in explore mode when the
// pool has more than W frames; none otherwise.
#include "trails/spawners/fps_spawner.h"

#include "trails/analysis/farthest_points.h"
#include "trails/core/error.h"

namespace trails::spawners {

std::vector<std::int64_t> FpsSpawner::choose(const features::FrameHistory& history,
                                             std::int64_t first, int n, core::Rng& rng) const {
  TRAILS_CHECK(n >= 0, "FpsSpawner: negative walker count");
  if (n == 0) return {};
  const int d = history.cv_dim();
  const std::vector<double> pts = pool_points(history, first);
  const auto size = static_cast<std::int64_t>(pts.size()) / d;
  TRAILS_CHECK(size > 0, "FpsSpawner: the frame pool is empty");
  std::vector<std::int64_t> rows;
  if (size <= n) {
    for (std::int64_t k = 0; k < n; ++k) rows.push_back(first + k % size);
    return rows;
  }
  std::int64_t seed = 0;
  if (options_.target) {
    check_target_dimension(*options_.target, d);
    seed = analysis::nearest_point(pts, d, *options_.target);
  } else {
    seed = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(size)));
  }
  rows = analysis::farthest_points(pts, d, seed, n);
  for (auto& r : rows) r += first;
  return rows;
}

}  // namespace trails::spawners
