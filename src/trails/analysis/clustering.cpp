// k-means (k-means++ seeding, Lloyd iterations), regular-space clustering, nearest-centre
// assignment.
#include "trails/analysis/clustering.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "trails/core/error.h"
#include "trails/core/rng.h"
#include "trails/core/thread_pool.h"

namespace trails::analysis {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double squared_distance(const double* a, const double* b, Eigen::Index d) {
  double s = 0.0;
  for (Eigen::Index j = 0; j < d; ++j) {
    const double t = a[j] - b[j];
    s += t * t;
  }
  return s;
}

void require_finite(const PointsRef& points, const char* what) {
  if (!points.allFinite())
    throw core::InputError(std::string(what) + ": expected finite coordinates (no NaN/inf)");
}

constexpr std::size_t kPointChunk = 4096;  // points per pool chunk (per-point results only)

// Brute force: labels[i] = argmin_c |x_i - c|^2 (lowest index on ties), dist2[i] = that minimum.
void nearest_scan(const PointsRef& points, const PointsRef& centres, std::size_t begin,
                  std::size_t end, std::vector<int>& labels, std::vector<double>& dist2) {
  const Eigen::Index d = points.cols(), k = centres.rows();
  for (std::size_t i = begin; i < end; ++i) {
    const double* x = points.row(static_cast<Eigen::Index>(i)).data();
    int best = 0;
    double best_d = std::numeric_limits<double>::infinity();
    for (Eigen::Index c = 0; c < k; ++c) {
      const double dc = squared_distance(x, centres.row(c).data(), d);
      if (dc < best_d) {
        best_d = dc;
        best = static_cast<int>(c);
      }
    }
    labels[i] = best;
    dist2[i] = best_d;
  }
}

// The centres sorted along the axis where they spread most, for the pruned search below.
struct SortedCentres {
  Eigen::Index axis = 0;
  std::vector<double> key;  // centre coordinate on `axis`, ascending
  std::vector<int> index;   // original centre index
  RowMatrix rows;           // centres in sorted order
};

SortedCentres sort_centres(const PointsRef& centres) {
  SortedCentres s;
  const Eigen::Index k = centres.rows();
  (centres.colwise().maxCoeff() - centres.colwise().minCoeff()).maxCoeff(&s.axis);
  s.index.resize(static_cast<std::size_t>(k));
  std::iota(s.index.begin(), s.index.end(), 0);
  std::sort(s.index.begin(), s.index.end(), [&](int a, int b) {
    const double ka = centres(a, s.axis), kb = centres(b, s.axis);
    return ka < kb || (ka == kb && a < b);
  });
  s.key.resize(s.index.size());
  s.rows.resize(k, centres.cols());
  for (std::size_t r = 0; r < s.index.size(); ++r) {
    s.key[r] = centres(s.index[r], s.axis);
    s.rows.row(static_cast<Eigen::Index>(r)) = centres.row(s.index[r]);
  }
  return s;
}

// Exactly the brute-force result, pruned (docs/analysis.md, "Nearest-centre search"): from the
// point's position in the sorted keys, centres are visited outward in order of the bound
// b = fl((x_a - c_a)^2), which never exceeds the rounded squared distance (a rounded sum of
// non-negative terms is at least each term) and grows monotonically outward. A side stops once
// b > best; equal bounds are still visited so that ties go to the lowest original index.
void nearest_sorted(const PointsRef& points, const SortedCentres& s, std::size_t begin,
                    std::size_t end, std::vector<int>& labels, std::vector<double>& dist2) {
  const Eigen::Index d = points.cols();
  const auto k = static_cast<std::ptrdiff_t>(s.key.size());
  const double* key = s.key.data();
  for (std::size_t i = begin; i < end; ++i) {
    const double* x = points.row(static_cast<Eigen::Index>(i)).data();
    const double xa = x[s.axis];
    std::ptrdiff_t up = std::lower_bound(key, key + k, xa) - key, down = up - 1;
    int best = std::numeric_limits<int>::max();
    double best_d = std::numeric_limits<double>::infinity();
    auto visit = [&](std::ptrdiff_t r) {
      const double dc = squared_distance(x, s.rows.row(r).data(), d);
      const int c = s.index[static_cast<std::size_t>(r)];
      if (dc < best_d || (dc == best_d && c < best)) {
        best_d = dc;
        best = c;
      }
    };
    for (;;) {
      const double bu = up < k ? (xa - key[up]) * (xa - key[up]) : kInf;
      const double bd = down >= 0 ? (xa - key[down]) * (xa - key[down]) : kInf;
      if (bu <= bd) {
        if (bu > best_d || up >= k) break;
        visit(up++);
      } else {
        if (bd > best_d) break;
        visit(down--);
      }
    }
    labels[i] = best;
    dist2[i] = best_d;
  }
}

// labels[i] = argmin_c |x_i - c|^2 (lowest index on ties), dist2[i] = that minimum; the pruned
// search when the centres are finite and numerous enough to gain from it, else brute force.
void nearest(const PointsRef& points, const PointsRef& centres, std::vector<int>& labels,
             std::vector<double>& dist2, int n_threads, core::ThreadPool* pool = nullptr) {
  const auto n = static_cast<std::size_t>(points.rows());
  labels.resize(n);
  dist2.resize(n);
  constexpr Eigen::Index kMinSorted = 8;
  const bool sorted = centres.rows() >= kMinSorted && centres.allFinite();
  const SortedCentres s = sorted ? sort_centres(centres) : SortedCentres{};
  core::ThreadPool& p = pool ? *pool : core::default_pool();
  p.parallel_for(
      n, kPointChunk,
      [&](std::size_t begin, std::size_t end) {
        if (sorted)
          nearest_sorted(points, s, begin, end, labels, dist2);
        else
          nearest_scan(points, centres, begin, end, labels, dist2);
      },
      n_threads);
}

double ordered_sum(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x;
  return s;
}

// k-means++ (Arthur & Vassilvitskii 2007): the first centre uniform, each further centre drawn
// with probability proportional to the squared distance to the nearest centre chosen so far.
RowMatrix kmeans_plus_plus(const PointsRef& points, int k, std::uint64_t seed, int n_threads,
                           core::ThreadPool& pool) {
  const auto n = static_cast<std::size_t>(points.rows());
  const Eigen::Index d = points.cols();
  core::Rng rng = core::Rng::stream(seed, "kmeans++");
  RowMatrix centres(k, d);
  std::size_t chosen = rng.below(n);
  centres.row(0) = points.row(static_cast<Eigen::Index>(chosen));
  std::vector<double> mind(n);
  auto update = [&](Eigen::Index c) {
    const double* cc = centres.row(c).data();
    pool.parallel_for(
        n, kPointChunk,
        [&](std::size_t begin, std::size_t end) {
          for (std::size_t i = begin; i < end; ++i) {
            const double di =
                squared_distance(points.row(static_cast<Eigen::Index>(i)).data(), cc, d);
            if (c == 0 || di < mind[i]) mind[i] = di;
          }
        },
        n_threads);
  };
  update(0);
  for (Eigen::Index c = 1; c < k; ++c) {
    const double total = ordered_sum(mind);
    if (total > 0.0) {
      const double target = rng.uniform() * total;
      double acc = 0.0;
      chosen = n;
      std::size_t last_positive = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (mind[i] <= 0.0) continue;
        last_positive = i;
        acc += mind[i];
        if (acc > target) {
          chosen = i;
          break;
        }
      }
      if (chosen == n) chosen = last_positive;  // rounding at the top end of the scan
    } else {
      chosen = rng.below(n);  // fewer distinct points than k: duplicates are unavoidable
    }
    centres.row(c) = points.row(static_cast<Eigen::Index>(chosen));
    update(c);
  }
  return centres;
}

}  // namespace

Eigen::Map<const RowMatrix> points_view(std::span<const double> data, Eigen::Index n,
                                        Eigen::Index d) {
  if (n < 0 || d < 0 || static_cast<std::size_t>(n * d) != data.size())
    throw core::InputError("points_view: expected " + std::to_string(n) + " x " +
                           std::to_string(d) + " values, got " + std::to_string(data.size()));
  return {data.data(), n, d};
}

ClusterModel kmeans(const PointsRef& points, const KMeansOptions& options) {
  const Eigen::Index n = points.rows(), d = points.cols();
  if (options.k < 1 || options.k > n)
    throw core::InputError("kmeans: expected 1 <= k <= n_points = " + std::to_string(n) +
                           ", got k = " + std::to_string(options.k));
  if (d < 1) throw core::InputError("kmeans: expected at least one dimension, got 0");
  if (options.max_iter < 0 || !(options.tolerance >= 0.0))
    throw core::InputError("kmeans: expected max_iter >= 0 and tolerance >= 0, got " +
                           std::to_string(options.max_iter) + ", " +
                           std::to_string(options.tolerance));
  require_finite(points, "kmeans");
  core::ThreadPool& pool = options.pool ? *options.pool : core::default_pool();
  ClusterModel model;
  if (options.initial_centres) {
    const RowMatrix& init = *options.initial_centres;
    if (init.rows() != options.k || init.cols() != d)
      throw core::InputError("kmeans: expected initial centres " + std::to_string(options.k) +
                             " x " + std::to_string(d) + ", got " + std::to_string(init.rows()) +
                             " x " + std::to_string(init.cols()));
    if (!init.allFinite()) throw core::InputError("kmeans: initial centres are not finite");
    model.centres = init;
  } else {
    model.centres = kmeans_plus_plus(points, options.k, options.seed, options.n_threads, pool);
  }
  // Scale for the shift test: mean over dimensions of the (population) variance, in point order.
  Eigen::RowVectorXd mean = Eigen::RowVectorXd::Zero(d), sq = Eigen::RowVectorXd::Zero(d);
  for (Eigen::Index i = 0; i < n; ++i) mean += points.row(i);
  mean /= static_cast<double>(n);
  for (Eigen::Index i = 0; i < n; ++i) sq += (points.row(i) - mean).cwiseAbs2();
  const double threshold = options.tolerance * sq.sum() / static_cast<double>(n * d);

  std::vector<int> labels;
  std::vector<double> dist2;
  RowMatrix sums(options.k, d);
  std::vector<Eigen::Index> members(static_cast<std::size_t>(options.k));
  for (int it = 1; it <= options.max_iter; ++it) {
    nearest(points, model.centres, labels, dist2, options.n_threads, &pool);
    sums.setZero();
    std::fill(members.begin(), members.end(), 0);
    for (Eigen::Index i = 0; i < n; ++i) {
      sums.row(labels[static_cast<std::size_t>(i)]) += points.row(i);
      ++members[static_cast<std::size_t>(labels[static_cast<std::size_t>(i)])];
    }
    double shift = 0.0;
    for (Eigen::Index c = 0; c < options.k; ++c) {
      const auto m = members[static_cast<std::size_t>(c)];
      if (m == 0) continue;  // an empty cluster keeps its centre
      const Eigen::RowVectorXd updated = sums.row(c) / static_cast<double>(m);
      shift += (updated - model.centres.row(c)).squaredNorm();
      model.centres.row(c) = updated;
    }
    // deeptime's inertia of this iteration: the updated centres with this iteration's labels.
    double cost = 0.0;
    for (Eigen::Index i = 0; i < n; ++i)
      cost += squared_distance(points.row(i).data(),
                               model.centres.row(labels[static_cast<std::size_t>(i)]).data(), d);
    model.inertia_history.push_back(cost);
    model.iterations = it;
    if (shift <= threshold) {
      model.converged = true;
      break;
    }
  }
  nearest(points, model.centres, labels, dist2, options.n_threads, &pool);
  model.inertia = ordered_sum(dist2);
  return model;
}

ClusterModel regular_space(const PointsRef& points, double dmin, int max_centers, int n_threads) {
  const Eigen::Index n = points.rows(), d = points.cols();
  if (!(dmin > 0.0) || max_centers < 1)
    throw core::InputError("regular_space: expected dmin > 0 and max_centers >= 1, got dmin = " +
                           std::to_string(dmin) + ", max_centers = " + std::to_string(max_centers));
  if (n < 1 || d < 1)
    throw core::InputError("regular_space: expected at least one point and one dimension, got " +
                           std::to_string(n) + " x " + std::to_string(d));
  require_finite(points, "regular_space");
  const double dmin2 = dmin * dmin;
  std::vector<Eigen::Index> picked{0};
  ClusterModel model;
  model.converged = true;
  for (Eigen::Index i = 1; i < n; ++i) {
    bool far = true;
    for (Eigen::Index c : picked)
      if (squared_distance(points.row(i).data(), points.row(c).data(), d) < dmin2) {
        far = false;
        break;
      }
    if (!far) continue;
    if (static_cast<int>(picked.size()) == max_centers) {
      model.converged = false;
      break;
    }
    picked.push_back(i);
  }
  model.centres.resize(static_cast<Eigen::Index>(picked.size()), d);
  for (std::size_t c = 0; c < picked.size(); ++c)
    model.centres.row(static_cast<Eigen::Index>(c)) = points.row(picked[c]);
  model.iterations = 1;
  std::vector<int> labels;
  std::vector<double> dist2;
  nearest(points, model.centres, labels, dist2, n_threads);
  model.inertia = ordered_sum(dist2);
  return model;
}

std::vector<int> assign(const PointsRef& centres, const PointsRef& points, int n_threads) {
  if (centres.rows() < 1 || centres.cols() != points.cols())
    throw core::InputError("assign: expected at least one centre with " +
                           std::to_string(points.cols()) + " coordinates, got " +
                           std::to_string(centres.rows()) + " x " + std::to_string(centres.cols()));
  require_finite(points, "assign");
  std::vector<int> labels;
  std::vector<double> dist2;
  nearest(points, centres, labels, dist2, n_threads);
  return labels;
}

std::vector<int> assign(const ClusterModel& model, const PointsRef& points, int n_threads) {
  return assign(model.centres, points, n_threads);
}

}  // namespace trails::analysis
