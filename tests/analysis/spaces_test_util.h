// Test helpers for the spaces numerics: seeded linear AR(1) processes and brute-force moments.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "trails/analysis/moments.h"
#include "trails/core/rng.h"

namespace trails::analysis::testing {

// x_{t+1} = A x_t + noise_scale * N(0, I), started from x_0 = 0 after `burn_in` discarded steps.
inline FrameMatrix simulate_ar1(const Eigen::MatrixXd& A, std::int64_t n_frames, std::uint64_t seed,
                                double noise_scale = 1.0, std::int64_t burn_in = 1000) {
  auto rng = core::Rng::stream(seed, "test-ar1");
  const auto d = A.rows();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(d), e(d);
  FrameMatrix out(n_frames, d);
  for (std::int64_t t = -burn_in; t < n_frames; ++t) {
    for (Eigen::Index i = 0; i < d; ++i) e(i) = noise_scale * rng.normal();
    x = A * x + e;
    if (t >= 0) out.row(t) = x.transpose();
  }
  return out;
}

inline FrameMatrix random_frames(std::int64_t n, int d, std::uint64_t seed, double offset = 0) {
  auto rng = core::Rng::stream(seed, "test-frames");
  FrameMatrix f(n, d);
  for (std::int64_t t = 0; t < n; ++t)
    for (int j = 0; j < d; ++j) f(t, j) = offset + (j + 1) * rng.normal() + 0.3 * j;
  return f;
}

// Stacks rows of the given segments: whole segments, or the pair halves x (rows [0, n-lag)) and
// y (rows [lag, n)) of each segment longer than lag.
inline FrameMatrix stack_rows(const std::vector<FrameMatrix>& segs, int lag, bool lagged_half) {
  std::int64_t rows = 0;
  const auto d = segs.front().cols();
  for (const auto& s : segs)
    rows += lag == 0 ? s.rows() : std::max<std::int64_t>(0, s.rows() - lag);
  FrameMatrix out(rows, d);
  std::int64_t at = 0;
  for (const auto& s : segs) {
    const std::int64_t m = lag == 0 ? s.rows() : std::max<std::int64_t>(0, s.rows() - lag);
    if (m == 0) continue;
    out.middleRows(at, m) = lagged_half ? s.bottomRows(m) : s.topRows(m);
    at += m;
  }
  return out;
}

// Two-pass mean and centred cross-product / n.
inline Eigen::VectorXd mean_of(const FrameMatrix& X) { return X.colwise().mean().transpose(); }
inline Eigen::MatrixXd cross_cov(const FrameMatrix& X, const Eigen::VectorXd& cx,
                                 const FrameMatrix& Y, const Eigen::VectorXd& cy) {
  const FrameMatrix Xc = X.rowwise() - cx.transpose();
  const FrameMatrix Yc = Y.rowwise() - cy.transpose();
  return (Xc.transpose() * Yc) / static_cast<double>(X.rows());
}

}  // namespace trails::analysis::testing
