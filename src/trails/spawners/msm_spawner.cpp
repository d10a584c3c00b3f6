#include "trails/spawners/msm_spawner.h"

#include <cmath>

#include "trails/analysis/clustering.h"
#include "trails/spawners/density_spawner.h"

namespace trails::spawners {
namespace {
constexpr int kFallbackMaxIter = 100;  // Trails-MD's least-counts KMeans max_iter
}  // namespace

MsmSpawner::MsmSpawner(MsmSpawnerOptions options) : options_(std::move(options)) {}

std::vector<double> MsmSpawner::guided_weights(const features::FrameHistory& history,
                                               std::int64_t pool_first, const msm::MsmBuild& msm) {
  const int d = history.cv_dim();
  if (labelled_with_ != msm.clustering.get()) {  // a refit: the new clustering labels everything
    labels_.clear();
    keep_ = msm.clustering;
    labelled_with_ = keep_.get();
  }
  // Label the frames not labelled yet (block by block: each block is contiguous).
  for (std::size_t blk = 0; blk < history.iterations(); ++blk) {
    const auto first = history.block_first(blk);
    const auto frames = history.block_frames(blk);
    if (first + frames <= static_cast<std::int64_t>(labels_.size())) continue;
    const auto from = static_cast<std::int64_t>(labels_.size()) - first;
    const auto pts = history.block_points(blk).subspan(static_cast<std::size_t>(from * d));
    const auto l = analysis::assign(*keep_, analysis::points_view(pts, frames - from, d), 1);
    labels_.insert(labels_.end(), l.begin(), l.end());
  }
  const auto& m = options_;
  const auto n_micro = static_cast<std::size_t>(keep_->centres.rows());
  std::vector<double> score(n_micro, m.alpha);  // frontier states: alpha
  const auto na = static_cast<Eigen::Index>(msm.active_set.size());
  std::vector<double> s(static_cast<std::size_t>(na));
  double mean = 0.0;
  int positive = 0;
  for (Eigen::Index i = 0; i < na; ++i) {
    double acc = 0.0;
    for (Eigen::Index j = 0; j < na; ++j) acc += msm.T(i, j) * (1.0 - msm.T(i, j));
    s[static_cast<std::size_t>(i)] =
        std::sqrt(acc / (msm.counts_per_state[static_cast<std::size_t>(i)] + 1.0));
    if (s[static_cast<std::size_t>(i)] > 0) {
      mean += s[static_cast<std::size_t>(i)];
      ++positive;
    }
  }
  if (positive > 0) mean /= positive;
  const int L = static_cast<int>(m.leverage);
  for (Eigen::Index i = 0; i < na; ++i) {
    const double sigma = m.uncertainty && mean > 0 ? s[static_cast<std::size_t>(i)] / mean : 1.0;
    double lev = 1.0;
    if (L > 0 && msm.eigenvectors.cols() > 0) {
      lev = 0.0;
      for (int r = 0; r < std::min<int>(L, static_cast<int>(msm.eigenvectors.cols())); ++r) {
        lev += std::abs(msm.eigenvectors(i, r));
      }
    }
    const double c = msm.counts_per_state[static_cast<std::size_t>(i)];
    score[static_cast<std::size_t>(msm.active_set[static_cast<std::size_t>(i)])] =
        msm.pi[static_cast<std::size_t>(i)] * lev * sigma + m.alpha / std::sqrt(c + 1.0);
  }
  const std::int64_t end = history.frames();
  std::vector<double> members(n_micro, 0.0);
  for (std::int64_t g = pool_first; g < end; ++g)
    members[static_cast<std::size_t>(labels_[g])] += 1.0;
  std::vector<double> w(static_cast<std::size_t>(end - pool_first));
  for (std::int64_t g = pool_first; g < end; ++g) {
    const auto l = static_cast<std::size_t>(labels_[g]);
    w[static_cast<std::size_t>(g - pool_first)] = score[l] / members[l];
  }
  return w;
}

std::vector<double> MsmSpawner::fallback_weights(const features::FrameHistory& history,
                                                 std::int64_t pool_first) {
  const int d = history.cv_dim();
  const std::int64_t n = history.frames() - pool_first;
  const std::vector<double> pts = pool_points(history, pool_first);
  analysis::KMeansOptions o;
  o.k = static_cast<int>(std::min<std::int64_t>(options_.fallback_clusters, n));
  o.max_iter = kFallbackMaxIter;
  o.seed = options_.seed;  // Trails-MD: fixed_seed = random_seed
  o.n_threads = 1;
  const auto view = analysis::points_view(pts, n, d);
  const auto labels = analysis::assign(analysis::kmeans(view, o), view, 1);
  std::vector<double> pop(static_cast<std::size_t>(o.k), 0.0);
  for (const int l : labels) pop[static_cast<std::size_t>(l)] += 1.0;
  std::vector<double> w(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const double c = pop[static_cast<std::size_t>(labels[static_cast<std::size_t>(i)])];
    w[static_cast<std::size_t>(i)] = 1.0 / (c * c);  // "least_counts": cluster total 1/c
  }
  return w;
}

std::vector<double> MsmSpawner::frame_weights(const features::FrameHistory& history,
                                              std::int64_t pool_first, const msm::MsmBuild* msm) {
  used_fallback_ = msm == nullptr || !msm->note.empty() || !msm->clustering;
  std::vector<double> w = used_fallback_ ? fallback_weights(history, pool_first)
                                         : guided_weights(history, pool_first, *msm);
  if (options_.target) {
    const auto& t = *options_.target;
    for (std::size_t i = 0; i < w.size(); ++i) {
      const auto p = history.point(pool_first + static_cast<std::int64_t>(i));
      double d2 = 0.0;
      for (std::size_t j = 0; j < p.size(); ++j) d2 += (p[j] - t[j]) * (p[j] - t[j]);
      w[i] /= std::sqrt(d2) + 1e-10;
    }
  }
  return w;
}

std::vector<std::int64_t> MsmSpawner::choose(const features::FrameHistory& history,
                                             std::int64_t pool_first, const msm::MsmBuild* msm,
                                             int n, core::Rng& rng) {
  auto rows = spawners::weighted_choice(frame_weights(history, pool_first, msm), n, rng);
  for (auto& r : rows) r += pool_first;
  return rows;
}

}  // namespace trails::spawners
