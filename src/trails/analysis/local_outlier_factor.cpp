#include "trails/analysis/local_outlier_factor.h"

#include <cmath>
#include <cstdint>
#include <string>

#include "trails/analysis/kd_tree.h"
#include "trails/core/error.h"
#include "trails/core/thread_pool.h"

namespace trails::analysis {
namespace {
constexpr std::size_t kChunk = 4096;  // points per parallel chunk
}  // namespace

std::vector<double> local_outlier_factor(std::span<const double> points, int dim, int k) {
  const KdTree tree(points, dim);
  const std::int64_t n = tree.size();
  if (k < 1 || k >= n) {
    throw core::InputError("local outlier factor: k = " + std::to_string(k) +
                           " needs 1 <= k < number of points (" + std::to_string(n) + ")");
  }
  const auto d = static_cast<std::size_t>(dim);
  const auto kk = static_cast<std::size_t>(k);
  // Neighbours of every point, itself excluded (scikit-learn's kneighbors() on the fitted set):
  // query k + 1 and drop the point itself, or the farthest when duplicates crowd it out.
  std::vector<std::int64_t> nbr(static_cast<std::size_t>(n) * kk);
  std::vector<double> dist(static_cast<std::size_t>(n) * kk);
  std::vector<double> k_distance(static_cast<std::size_t>(n));
  // Each point's query writes only its own rows: chunks run in parallel, results are bitwise
  // those of a serial loop.
  core::default_pool().parallel_for(
      static_cast<std::size_t>(n), kChunk, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          const auto found = tree.nearest(points.subspan(i * d, d), k + 1);
          const std::size_t out = i * kk;
          std::size_t taken = 0;
          for (const auto& f : found) {
            if (f.index == static_cast<std::int64_t>(i) || taken == kk) continue;
            nbr[out + taken] = f.index;
            dist[out + taken] = std::sqrt(f.dist2);
            ++taken;
          }
          k_distance[i] = dist[out + kk - 1];
        }
      });
  std::vector<double> lrd(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < lrd.size(); ++i) {
    double reach = 0.0;
    for (std::size_t m = 0; m < kk; ++m) {
      const auto j = static_cast<std::size_t>(nbr[i * kk + m]);
      reach += std::max(k_distance[j], dist[i * kk + m]);
    }
    lrd[i] = 1.0 / (reach / static_cast<double>(kk) + 1e-10);
  }
  std::vector<double> lof(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < lof.size(); ++i) {
    double ratio = 0.0;
    for (std::size_t m = 0; m < kk; ++m) ratio += lrd[static_cast<std::size_t>(nbr[i * kk + m])];
    lof[i] = ratio / static_cast<double>(kk) / lrd[i];
  }
  return lof;
}

}  // namespace trails::analysis
