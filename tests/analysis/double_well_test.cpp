// Implied timescales of a discretised 1-D double well against its exact spectrum. The
// Smoluchowski generator on a grid (nearest-neighbour rates (D/h^2) exp(-(V_j - V_i)/2), kT = 1)
// is reversible with pi ∝ exp(-V); T(lag) = exp(L lag dt) is built from the symmetrised
// generator's eigen-decomposition, so exact timescales are -1/(lambda_k(L) dt) at every lag.
#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Eigenvalues>

#include "trails/analysis/msm_model.h"
#include "trails/analysis/spectral.h"
#include "trails/core/rng.h"

using namespace trails::analysis;

namespace {

struct DoubleWell {
  Eigen::VectorXd pi;
  Eigen::VectorXd generator_eigenvalues;  // descending: 0, -1/t2, -1/t3, ...
  Eigen::MatrixXd U;                      // eigenvectors of the symmetrised generator
  double dt = 1.0;                        // time per MSM step

  Eigen::MatrixXd transition_matrix(int lag) const {
    const Eigen::VectorXd s = pi.cwiseSqrt();
    const Eigen::VectorXd e = (generator_eigenvalues * (lag * dt)).array().exp();
    Eigen::MatrixXd T =
        s.cwiseInverse().asDiagonal() * U * e.asDiagonal() * U.transpose() * s.asDiagonal();
    T = T.cwiseMax(0.0);
    const Eigen::VectorXd r = T.rowwise().sum();
    return r.cwiseInverse().asDiagonal() * T;
  }
  // Exact implied timescales in steps.
  double timescale(int k) const { return -1.0 / (generator_eigenvalues(k) * dt); }
};

DoubleWell make_double_well(int n) {
  const double lo = -1.8, hi = 1.8, h = (hi - lo) / (n - 1);
  Eigen::VectorXd V(n);
  for (int i = 0; i < n; ++i) {
    const double x = lo + i * h;
    V(i) = 3.0 * (x * x - 1.0) * (x * x - 1.0);  // barrier 3 kT
  }
  Eigen::MatrixXd L = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j : {i - 1, i + 1})
      if (j >= 0 && j < n) L(i, j) = std::exp(-(V(j) - V(i)) / 2.0) / (h * h);
    L(i, i) = -L.row(i).sum();
  }
  DoubleWell w;
  w.pi = (-V).array().exp();
  w.pi /= w.pi.sum();
  const Eigen::VectorXd s = w.pi.cwiseSqrt();
  Eigen::MatrixXd S = s.asDiagonal() * L * s.cwiseInverse().asDiagonal();
  S = (0.5 * (S + S.transpose())).eval();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(S);
  w.generator_eigenvalues = solver.eigenvalues().reverse();
  w.U = solver.eigenvectors().rowwise().reverse();
  w.dt = 1.0;
  w.dt = w.timescale(1) / 100.0;  // slowest process: 100 steps
  return w;
}

std::vector<int> simulate_from_quarter(const Eigen::MatrixXd& T, int steps, std::uint64_t seed) {
  trails::core::Rng rng(seed);
  const Eigen::Index n = T.rows();
  // Cumulative rows once, for fast sampling.
  Eigen::MatrixXd cum = T;
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 1; j < n; ++j) cum(i, j) += cum(i, j - 1);
  std::vector<int> traj;
  traj.reserve(static_cast<std::size_t>(steps));
  int s = static_cast<int>(n / 4);
  for (int t = 0; t < steps; ++t) {
    traj.push_back(s);
    const double u = rng.uniform();
    int j = 0;
    while (j < n - 1 && u >= cum(s, j)) ++j;
    s = j;
  }
  return traj;
}

}  // namespace

TEST(DoubleWell, ExactCountsGiveExactSpectrumAtEveryLag) {
  const auto w = make_double_well(40);
  ASSERT_NEAR(w.timescale(1), 100.0, 1e-9);
  EXPECT_GT(w.timescale(1) / w.timescale(2), 40.0);  // a clear spectral gap (t3 = 2.33 steps)
  for (int lag : {1, 5, 20, 50}) {
    const Eigen::MatrixXd T = w.transition_matrix(lag);
    CountModel counts;
    counts.lag = lag;
    counts.counts = 1e6 * w.pi.asDiagonal() * T;
    counts.state_histogram = counts.counts.rowwise().sum();
    for (int i = 0; i < 40; ++i) counts.active_set.push_back(i), counts.active_index.push_back(i);
    const auto msm = estimate_msm(counts, true, {.tol = 1e-14});
    const Eigen::VectorXd ts = msm.timescales(3);
    for (int k = 0; k < 3; ++k) {
      // Eigenvalues exp(-lag / t) below ~1e-8 drown in rounding (|error| ~ 1e-16): skip them.
      if (std::exp(-lag / w.timescale(k + 1)) < 1e-8) continue;
      EXPECT_NEAR(ts(k) / w.timescale(k + 1), 1.0, 1e-6) << "lag " << lag << " k " << k;
    }
    EXPECT_LT((msm.stationary_distribution() - w.pi).cwiseAbs().maxCoeff(), 1e-10);
  }
}

TEST(DoubleWell, SimulatedSweepMatchesSpectrumAndIgnoresThreads) {
  const auto w = make_double_well(30);
  const std::vector<std::vector<int>> d = {
      simulate_from_quarter(w.transition_matrix(1), 1000000, 2026)};
  const std::vector<int> lags = {1, 2, 5, 10, 20};
  const auto one = implied_timescales_sweep(d, lags, 2, -1, CountMode::Sliding, {}, 1);
  const auto four = implied_timescales_sweep(d, lags, 2, -1, CountMode::Sliding, {}, 4);
  EXPECT_EQ(std::memcmp(one.timescales.data(), four.timescales.data(),
                        sizeof(double) * static_cast<std::size_t>(one.timescales.size())),
            0);
  EXPECT_EQ(one.n_active, four.n_active);
  for (std::size_t a = 0; a < lags.size(); ++a) {
    EXPECT_NEAR(one.timescales(static_cast<Eigen::Index>(a), 0) / w.timescale(1), 1.0, 0.1)
        << "lag " << lags[a];
    // t3 is ~2.3 steps: beyond lag 2 its eigenvalue is below the statistical noise.
    if (lags[a] <= 2) {
      EXPECT_NEAR(one.timescales(static_cast<Eigen::Index>(a), 1) / w.timescale(2), 1.0, 0.1)
          << "lag " << lags[a];
    }
  }
}
