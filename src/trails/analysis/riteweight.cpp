// RiteWeight (riteweight.h): random clusterings, weighted cluster counts, the stationary
// distribution of the cluster chain, and the multiplicative weight update.
#include "trails/analysis/riteweight.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include <fmt/format.h>
#include <Eigen/LU>

#include "trails/analysis/counting.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

namespace trails::analysis {
namespace {

void validate(const PointsRef& frames, std::span<const std::int64_t> starts,
              std::span<const std::int64_t> ends, const RiteWeightOptions& o) {
  if (starts.size() != ends.size()) {
    throw core::InputError(fmt::format("riteweight: {} segment starts but {} segment ends",
                                       starts.size(), ends.size()));
  }
  if (starts.empty()) throw core::InputError("riteweight: no segments to reweight");
  if (frames.cols() < 1) throw core::InputError("riteweight: frames have no coordinates");
  for (const auto* side : {&starts, &ends}) {
    for (const std::int64_t f : *side) {
      if (f < 0 || f >= frames.rows()) {
        throw core::InputError(
            fmt::format("riteweight: segment frame {} outside 0..{}", f, frames.rows() - 1));
      }
    }
  }
  if (!frames.allFinite()) throw core::InputError("riteweight: a frame coordinate is not finite");
  if (o.n_clusters < 1) {
    throw core::InputError(fmt::format("riteweight: n_clusters {} must be >= 1", o.n_clusters));
  }
  if (o.n_iterations < 1) {
    throw core::InputError(fmt::format("riteweight: n_iterations {} must be >= 1", o.n_iterations));
  }
  if (o.average_last < 1) {
    throw core::InputError(fmt::format("riteweight: average_last {} must be >= 1", o.average_last));
  }
  if (!(std::isfinite(o.learning_rate) && o.learning_rate > 0)) {
    throw core::InputError(
        fmt::format("riteweight: learning_rate {} must be positive", o.learning_rate));
  }
  if (!o.initial_weights.empty()) {
    if (o.initial_weights.size() != starts.size()) {
      throw core::InputError(fmt::format("riteweight: {} initial weights for {} segments",
                                         o.initial_weights.size(), starts.size()));
    }
    double total = 0.0;
    for (const double w : o.initial_weights) {
      if (!(std::isfinite(w) && w >= 0)) {
        throw core::InputError(
            fmt::format("riteweight: initial weight {} is not a finite value >= 0", w));
      }
      total += w;
    }
    if (!(total > 0)) throw core::InputError("riteweight: the initial weights sum to 0");
  }
}

// Stationary distribution of the cluster chain on its largest strongly connected set S
// (T = C restricted to S, rows normalised), scaled to carry S's current weight W(S). Clusters
// outside S get NaN: their weights are left as they are. On S the restricted chain is
// irreducible, so pi (T - I) = 0 with sum(pi) = 1 has one solution (an LU solve, with the
// last equation replaced by the normalisation). A chain split by a clustering is what the
// reference's "eigenvector closest to 1" leaves undefined.
Eigen::VectorXd cluster_stationary(const Eigen::MatrixXd& counts, const Eigen::VectorXd& weight) {
  const auto k = counts.rows();
  Eigen::VectorXd pi = Eigen::VectorXd::Constant(k, std::nan(""));
  const std::vector<int> set = largest_connected_set(counts);
  const auto m = static_cast<Eigen::Index>(set.size());
  double set_weight = 0.0;
  for (const int i : set) set_weight += weight(i);
  if (m == 1) {
    pi(set[0]) = set_weight;
    return pi;
  }
  Eigen::MatrixXd a(m, m);  // (T_S - I)^T
  for (Eigen::Index r = 0; r < m; ++r) {
    double row = 0.0;
    for (Eigen::Index c = 0; c < m; ++c) row += counts(set[r], set[c]);
    for (Eigen::Index c = 0; c < m; ++c) a(c, r) = counts(set[r], set[c]) / row;
    a(r, r) -= 1.0;
  }
  a.row(m - 1).setOnes();
  Eigen::VectorXd b = Eigen::VectorXd::Zero(m);
  b(m - 1) = 1.0;
  const Eigen::VectorXd x = a.partialPivLu().solve(b);
  for (Eigen::Index r = 0; r < m; ++r) pi(set[r]) = std::max(0.0, x(r)) * set_weight;
  return pi;
}

}  // namespace

bool riteweight_converged(std::span<const double> drift) {
  const std::size_t n = drift.size();
  if (n < 20) return false;
  const std::size_t tenth = std::max<std::size_t>(1, n / 10);
  const auto mean = [](std::span<const double> v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  const double first = mean(drift.first(tenth));
  const double last = mean(drift.last(tenth));
  return last < 0.5 * first && last < 1e-2;
}

RiteWeightResult riteweight(const PointsRef& frames, std::span<const std::int64_t> starts,
                            std::span<const std::int64_t> ends, const RiteWeightOptions& options) {
  validate(frames, starts, ends, options);
  const std::size_t n_seg = starts.size();
  // The frames some segment uses, in frame order; segments refer to them by local index.
  std::vector<std::int64_t> local(static_cast<std::size_t>(frames.rows()), -1);
  for (const auto* side : {&starts, &ends}) {
    for (const std::int64_t f : *side) local[static_cast<std::size_t>(f)] = 0;
  }
  std::vector<Eigen::Index> used;
  for (std::size_t f = 0; f < local.size(); ++f) {
    if (local[f] == 0) {
      local[f] = static_cast<std::int64_t>(used.size());
      used.push_back(static_cast<Eigen::Index>(f));
    }
  }
  const auto m = static_cast<Eigen::Index>(used.size());
  const Eigen::Index d = frames.cols();
  RowMatrix pool(m, d);
  for (Eigen::Index i = 0; i < m; ++i) pool.row(i) = frames.row(used[static_cast<std::size_t>(i)]);
  std::vector<std::size_t> seg_start(n_seg), seg_end(n_seg);
  for (std::size_t s = 0; s < n_seg; ++s) {
    seg_start[s] = static_cast<std::size_t>(local[static_cast<std::size_t>(starts[s])]);
    seg_end[s] = static_cast<std::size_t>(local[static_cast<std::size_t>(ends[s])]);
  }

  std::vector<double> w(n_seg, 1.0 / static_cast<double>(n_seg));
  if (!options.initial_weights.empty()) {
    const double total =
        std::accumulate(options.initial_weights.begin(), options.initial_weights.end(), 0.0);
    for (std::size_t s = 0; s < n_seg; ++s) w[s] = options.initial_weights[s] / total;
  }
  const int k = static_cast<int>(std::min<Eigen::Index>(options.n_clusters, m));
  RiteWeightResult result;
  result.n_clusters = k;
  result.drift.reserve(static_cast<std::size_t>(options.n_iterations));
  const int n_avg = std::min(options.average_last, options.n_iterations);
  std::vector<double> sum(n_seg, 0.0);
  std::vector<Eigen::Index> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  core::Rng rng = core::Rng::stream(options.seed, "riteweight");
  RowMatrix centres(k, d);
  Eigen::MatrixXd counts(k, k);
  Eigen::VectorXd weight(k);
  std::vector<double> ratio(static_cast<std::size_t>(k));
  std::vector<double> next(n_seg);
  for (int it = 0; it < options.n_iterations; ++it) {
    // k distinct frames as centres: a partial Fisher-Yates draw over the persistent order.
    for (int c = 0; c < k; ++c) {
      const auto j = c + static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(m - c)));
      std::swap(order[static_cast<std::size_t>(c)], order[j]);
      centres.row(c) = pool.row(order[static_cast<std::size_t>(c)]);
    }
    const std::vector<int> label = assign(centres, pool, options.n_threads);
    counts.setZero();
    weight.setZero();
    for (std::size_t s = 0; s < n_seg; ++s) {
      const int from = label[seg_start[s]];
      counts(from, label[seg_end[s]]) += w[s];
      weight(from) += w[s];
    }
    const Eigen::VectorXd pi = cluster_stationary(counts, weight);
    for (int c = 0; c < k; ++c) {
      ratio[static_cast<std::size_t>(c)] =
          pi(c) > 0 && weight(c) > 0 ? std::pow(pi(c) / weight(c), options.learning_rate) : 1.0;
    }
    double total = 0.0;
    for (std::size_t s = 0; s < n_seg; ++s) {
      next[s] = w[s] * ratio[static_cast<std::size_t>(label[seg_start[s]])];
      total += next[s];
    }
    double drift = 0.0;
    if (std::isfinite(total) && total > 0) {  // else: keep the previous weights (drift 0)
      for (std::size_t s = 0; s < n_seg; ++s) {
        next[s] /= total;
        drift += std::abs(next[s] - w[s]);
      }
      w.swap(next);
    }
    result.drift.push_back(drift);
    if (it >= options.n_iterations - n_avg) {
      for (std::size_t s = 0; s < n_seg; ++s) sum[s] += w[s];
    }
  }
  const double total = std::accumulate(sum.begin(), sum.end(), 0.0);
  result.weights.resize(n_seg);
  for (std::size_t s = 0; s < n_seg; ++s) result.weights[s] = sum[s] / total;
  result.converged = riteweight_converged(result.drift);
  return result;
}

}  // namespace trails::analysis
