#include "trails/analysis/farthest_points.h"

#include <algorithm>
#include <limits>
#include <string>

#include "trails/core/error.h"

namespace trails::analysis {
namespace {

double dist2(const double* a, const double* b, std::size_t d) {
  double s = 0.0;
  for (std::size_t k = 0; k < d; ++k) s += (a[k] - b[k]) * (a[k] - b[k]);
  return s;
}

std::int64_t point_count(std::span<const double> points, int dim) {
  if (dim < 1 || points.size() % static_cast<std::size_t>(dim) != 0) {
    throw core::InputError("farthest points: " + std::to_string(points.size()) +
                           " values are not a whole number of points of dimension " +
                           std::to_string(dim));
  }
  return static_cast<std::int64_t>(points.size() / static_cast<std::size_t>(dim));
}

}  // namespace

std::vector<std::int64_t> farthest_points(std::span<const double> points, int dim,
                                          std::int64_t first, std::int64_t m) {
  const std::int64_t n = point_count(points, dim);
  if (first < 0 || first >= n || m < 1 || m > n) {
    throw core::InputError("farthest points: need 0 <= first < n and 1 <= m <= n (first " +
                           std::to_string(first) + ", m " + std::to_string(m) + ", n " +
                           std::to_string(n) + ")");
  }
  const auto d = static_cast<std::size_t>(dim);
  const double* x = points.data();
  // Squared distances: the same order as distances, without a square root per update.
  std::vector<double> nearest(static_cast<std::size_t>(n), std::numeric_limits<double>::infinity());
  std::vector<std::int64_t> chosen{first};
  chosen.reserve(static_cast<std::size_t>(m));
  std::int64_t last = first;
  while (static_cast<std::int64_t>(chosen.size()) < m) {
    const double* c = x + static_cast<std::size_t>(last) * d;
    std::int64_t best = 0;
    double best_d = -1.0;
    for (std::int64_t i = 0; i < n; ++i) {
      auto& di = nearest[static_cast<std::size_t>(i)];
      di = std::min(di, dist2(x + static_cast<std::size_t>(i) * d, c, d));
      if (di > best_d) {
        best_d = di;
        best = i;
      }
    }
    chosen.push_back(best);
    last = best;
  }
  return chosen;
}

std::int64_t nearest_point(std::span<const double> points, int dim,
                           std::span<const double> target) {
  const std::int64_t n = point_count(points, dim);
  TRAILS_CHECK(n > 0 && target.size() == static_cast<std::size_t>(dim),
               "nearest_point: empty set or target of the wrong dimension");
  const auto d = static_cast<std::size_t>(dim);
  std::int64_t best = 0;
  double best_d = std::numeric_limits<double>::infinity();
  for (std::int64_t i = 0; i < n; ++i) {
    const double di = dist2(points.data() + static_cast<std::size_t>(i) * d, target.data(), d);
    if (di < best_d) {
      best_d = di;
      best = i;
    }
  }
  return best;
}

}  // namespace trails::analysis
