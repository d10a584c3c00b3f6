// Clustering of CV frames into microstates: k-means (k-means++ seeding, Lloyd iterations) and
// regular-space clustering, plus nearest-centre assignment of frames.
// Pure numerics: inputs are read-only, results are values, nothing is logged.
// Points are n x d, one frame per row. Campaign data arrive as a row-major std::span<const double>;
// wrap them with points_view() (no copy). A column-major Eigen::MatrixXd is also accepted, but
// Eigen then makes a row-major temporary copy.
// Determinism: every random draw comes from core::Rng::stream(seed, "kmeans++"); assignment is
// per point and every sum runs in point order, so results are bitwise identical for any
// n_threads. Ties in distance go to the lowest centre index.
// Cost: k-means++ O(n k d); each Lloyd iteration one nearest-centre search (parallel) + O(n d)
// (serial update); regular space O(n m d) for m centres; assign one search (parallel). The search
// is exact but pruned along one axis (docs/analysis.md), about O(n sqrt(k)) in 2-D, at most
// O(n k d) in general.
// Throws core::InputError for bad sizes, k, tolerances, non-finite points.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "trails/core/thread_pool.h"

namespace trails::analysis {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using PointsRef = Eigen::Ref<const RowMatrix>;

// A zero-copy n x d row-major view of data (data.size() must equal n * d).
Eigen::Map<const RowMatrix> points_view(std::span<const double> data, Eigen::Index n,
                                        Eigen::Index d);

struct KMeansOptions {
  int k = 0;                // number of centres, 1 <= k <= n
  int max_iter = 200;       // Lloyd iterations at most (>= 0; 0 keeps the initial centres)
  double tolerance = 1e-5;  // converged when sum_c |c_new - c_old|^2 <= tolerance * mean
                            // per-dimension variance of the points (scale-free)
  std::uint64_t seed = 0;   // k-means++ stream key
  int n_threads =
      0;  // at most this many threads of core::default_pool() (0: all); results do not depend on it
  std::optional<RowMatrix> initial_centres = std::nullopt;  // warm start (k x d): skips k-means++
  core::ThreadPool* pool = nullptr;                         // nullptr: core::default_pool()
};

struct ClusterModel {
  RowMatrix centres;       // k x d
  int iterations = 0;      // Lloyd iterations run (k-means); 1 for regular space
  bool converged = false;  // k-means: tolerance met; regular space: max_centers not hit
  double inertia = 0.0;    // sum over points of the squared distance to the nearest centre
  // k-means, per Lloyd iteration: sum of squared distances of the points to the updated centres
  // of the clusters they were assigned to in that iteration (deeptime's `inertias`). `inertia`
  // re-assigns to the returned centres, so it is <= the last entry. Empty for regular space
  // and max_iter = 0.
  std::vector<double> inertia_history;
};

// Lloyd's algorithm (Lloyd 1982) from k-means++ seeds (Arthur & Vassilvitskii 2007) or from
// options.initial_centres. An empty cluster keeps its previous centre.
ClusterModel kmeans(const PointsRef& points, const KMeansOptions& options);

// Regular-space clustering (Prinz et al. 2011; deeptime RegularSpace): scanning points in order,
// the first point is a centre and every point at distance >= dmin from all current centres
// becomes one. If a further centre would exceed max_centers the scan stops, the centres found so
// far are kept and converged = false (deeptime warns in this case). dmin > 0, max_centers >= 1.
ClusterModel regular_space(const PointsRef& points, double dmin, int max_centers,
                           int n_threads = 0);

// Index of the nearest centre (Euclidean) for every point: the discrete trajectory.
std::vector<int> assign(const ClusterModel& model, const PointsRef& points, int n_threads = 0);
std::vector<int> assign(const PointsRef& centres, const PointsRef& points, int n_threads = 0);

}  // namespace trails::analysis
