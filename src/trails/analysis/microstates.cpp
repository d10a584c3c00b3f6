#include "trails/analysis/microstates.h"

#include <algorithm>
#include <limits>

#include "trails/core/error.h"

namespace trails::analysis {
namespace {

double dist2(const double* a, const double* b, int dim) {
  double s = 0.0;
  for (int j = 0; j < dim; ++j) {
    const double d = a[j] - b[j];
    s += d * d;
  }
  return s;
}

int nearest(const MicrostateCentres& c, const double* x, double* best_d = nullptr) {
  int best = 0;
  double bd = std::numeric_limits<double>::infinity();
  for (int i = 0; i < c.k; ++i) {
    const double d = dist2(x, &c.centres[static_cast<std::size_t>(i) * c.dim], c.dim);
    if (d < bd) {
      bd = d;
      best = i;
    }
  }
  if (best_d) *best_d = bd;
  return best;
}

std::int64_t count_points(std::span<const double> points, int dim) {
  if (dim <= 0 || points.size() % static_cast<std::size_t>(dim) != 0) {
    throw core::InputError("microstates: point array size is not a multiple of the dimension");
  }
  return static_cast<std::int64_t>(points.size() / static_cast<std::size_t>(dim));
}

}  // namespace

void assign_nearest(const MicrostateCentres& c, std::span<const double> points,
                    std::vector<int>& labels) {
  const auto n = count_points(points, c.dim);
  labels.resize(static_cast<std::size_t>(n));
  for (std::int64_t p = 0; p < n; ++p) {
    labels[static_cast<std::size_t>(p)] = nearest(c, &points[static_cast<std::size_t>(p) * c.dim]);
  }
}

MicrostateCentres kmeans_centres(std::span<const double> points, int dim, int k, int max_iter,
                                 core::Rng& rng, const MicrostateCentres* warm) {
  const auto n = count_points(points, dim);
  if (k < 1 || k > n) throw core::InputError("kmeans: need 1 <= k <= number of points");
  const auto at = [&](std::int64_t p) { return &points[static_cast<std::size_t>(p) * dim]; };
  MicrostateCentres c{k, dim, {}};
  if (warm && warm->k == k && warm->dim == dim) {
    c.centres = warm->centres;
  } else {
    // k-means++ (Arthur & Vassilvitskii 2007): next centre drawn with probability ∝ D(x)^2.
    c.centres.reserve(static_cast<std::size_t>(k) * dim);
    const auto first = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n)));
    c.centres.insert(c.centres.end(), at(first), at(first) + dim);
    std::vector<double> d2(static_cast<std::size_t>(n));
    for (std::int64_t p = 0; p < n; ++p) d2[p] = dist2(at(p), at(first), dim);
    for (int m = 1; m < k; ++m) {
      double total = 0.0;
      for (const double v : d2) total += v;
      std::int64_t pick = n - 1;
      if (total > 0.0) {
        double r = rng.uniform() * total;
        for (std::int64_t p = 0; p < n; ++p) {
          r -= d2[p];
          if (r < 0.0) {
            pick = p;
            break;
          }
        }
      } else {
        pick = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n)));
      }
      c.centres.insert(c.centres.end(), at(pick), at(pick) + dim);
      for (std::int64_t p = 0; p < n; ++p) d2[p] = std::min(d2[p], dist2(at(p), at(pick), dim));
    }
  }
  c.k = k;
  std::vector<int> labels(static_cast<std::size_t>(n), -1);
  std::vector<double> sum(static_cast<std::size_t>(k) * dim);
  std::vector<std::int64_t> size(static_cast<std::size_t>(k));
  for (int it = 0; it < max_iter; ++it) {
    bool changed = false;
    for (std::int64_t p = 0; p < n; ++p) {
      const int l = nearest(c, at(p));
      if (l != labels[p]) changed = true;
      labels[p] = l;
    }
    if (!changed) break;
    std::fill(sum.begin(), sum.end(), 0.0);
    std::fill(size.begin(), size.end(), 0);
    for (std::int64_t p = 0; p < n; ++p) {
      const int l = labels[p];
      ++size[l];
      for (int j = 0; j < dim; ++j) sum[static_cast<std::size_t>(l) * dim + j] += at(p)[j];
    }
    for (int i = 0; i < k; ++i) {
      double* ci = &c.centres[static_cast<std::size_t>(i) * dim];
      if (size[i] > 0) {
        for (int j = 0; j < dim; ++j) ci[j] = sum[static_cast<std::size_t>(i) * dim + j] / size[i];
        continue;
      }
      // Empty cluster: move it onto the point farthest from its own centre.
      std::int64_t far = 0;
      double fd = -1.0;
      for (std::int64_t p = 0; p < n; ++p) {
        const double d = dist2(at(p), &c.centres[static_cast<std::size_t>(labels[p]) * dim], dim);
        if (d > fd) {
          fd = d;
          far = p;
        }
      }
      std::copy(at(far), at(far) + dim, ci);
    }
  }
  return c;
}

MicrostateCentres regular_space_centres(std::span<const double> points, int dim, double dmin,
                                        int max_centres) {
  const auto n = count_points(points, dim);
  MicrostateCentres c{0, dim, {}};
  const double d2min = dmin * dmin;
  for (std::int64_t p = 0; p < n && c.k < max_centres; ++p) {
    const double* x = &points[static_cast<std::size_t>(p) * dim];
    double bd = std::numeric_limits<double>::infinity();
    if (c.k > 0) nearest(c, x, &bd);
    if (c.k == 0 || bd > d2min) {
      c.centres.insert(c.centres.end(), x, x + dim);
      ++c.k;
    }
  }
  return c;
}

}  // namespace trails::analysis
