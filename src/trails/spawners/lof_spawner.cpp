// LofSpawner: random numbers are exactly weighted_choice's (n rng.uniform() calls).
#include "trails/spawners/lof_spawner.h"

#include <algorithm>
#include <cmath>

#include "trails/core/error.h"
#include "trails/spawners/density_spawner.h"

namespace trails::spawners {

LofSpawner::LofSpawner(LofOptions options)
    : options_(std::move(options)), index_(std::max(options_.neighbors, 1)) {
  TRAILS_CHECK(options_.neighbors >= 1, "LofSpawner: lof_neighbors must be >= 1");
}

std::vector<double> LofSpawner::frame_weights(const features::FrameHistory& history,
                                              std::int64_t first) {
  const int d = history.cv_dim();
  const std::int64_t n = history.frames() - first;
  TRAILS_CHECK(n > 0, "LofSpawner: the frame pool is empty");
  if (n == 1) return {1.0};
  std::vector<double> w = index_.update(history, first);
  const double lo = *std::min_element(w.begin(), w.end());
  for (double& x : w) x -= lo;
  if (options_.target) {
    const auto& t = *options_.target;
    check_target_dimension(t, d);
    const std::vector<double> pts = pool_points(history, first);  // target mode only: O(pool)
    std::vector<double> p(w.size());
    double total = 0.0;
    for (std::size_t i = 0; i < p.size(); ++i) {
      double s = 0.0;
      for (std::size_t j = 0; j < t.size(); ++j) {
        const double diff = pts[i * t.size() + j] - t[j];
        s += diff * diff;
      }
      p[i] = 1.0 / (std::sqrt(s) + 1e-10);
      total += p[i];
    }
    for (std::size_t i = 0; i < w.size(); ++i) w[i] *= p[i] / total;
  }
  return w;
}

std::vector<std::int64_t> LofSpawner::choose(const features::FrameHistory& history,
                                             std::int64_t first, int n, core::Rng& rng) {
  TRAILS_CHECK(n >= 0, "LofSpawner: negative walker count");
  if (n == 0) return {};
  auto rows = weighted_choice(frame_weights(history, first), n, rng);
  for (auto& r : rows) r += first;
  return rows;
}

}  // namespace trails::spawners
