// Spectra and implied timescales: closed-form 2-state and 3-state tridiagonal chains (checked
// against the characteristic polynomial), lag-independence with exact expected counts, a seeded
// simulated chain within 10% of the exact timescales, and degenerate sweep lags as NaN data.
#include "trails/analysis/spectral.h"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/LU>  // determinant()

#include "support/markov.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

using namespace trails::analysis;
using trails::core::InputError;
using trails::core::Rng;

namespace {

// P = a I + tridiagonal coupling; eigenvalues 1, 1 - 2b, 1 - 4b when rows are
// (1-2b, 2b, 0), (b, 1-2b, b), (0, 2b, 1-2b): the off-diagonal block has eigenvalues 0, +-2b.
Eigen::MatrixXd tridiagonal_chain(double b) {
  Eigen::MatrixXd P(3, 3);
  P << 1 - 2 * b, 2 * b, 0, b, 1 - 2 * b, b, 0, 2 * b, 1 - 2 * b;
  return P;
}

Eigen::Vector3d tridiagonal_pi() { return {0.25, 0.5, 0.25}; }

}  // namespace

TEST(Spectral, TwoStateClosedForm) {
  Eigen::MatrixXd T(2, 2);
  T << 0.9, 0.1, 0.2, 0.8;
  const auto ev = eigenvalues(T);
  EXPECT_NEAR(ev(0), 1.0, 1e-15);
  EXPECT_NEAR(ev(1), 0.7, 1e-15);
  const Eigen::Vector2d pi(2.0 / 3.0, 1.0 / 3.0);
  EXPECT_NEAR(eigenvalues(T, pi)(1), 0.7, 1e-15);
  EXPECT_NEAR(implied_timescales(T, 1.0, 1)(0), -1.0 / std::log(0.7), 1e-13);
  EXPECT_NEAR(implied_timescales(T, pi, 3.0, 1)(0), -3.0 / std::log(0.7), 1e-13);
}

TEST(Spectral, ThreeStateTridiagonalKnownSpectrum) {
  const auto P = tridiagonal_chain(0.01);  // [[0.98,0.02,0],[0.01,0.98,0.01],[0,0.02,0.98]]
  const Eigen::Vector3d exact(1.0, 0.98, 0.96);
  const auto general = eigenvalues(P);
  const auto symmetric = eigenvalues(P, tridiagonal_pi());
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(general(i), exact(i), 1e-14);
    EXPECT_NEAR(symmetric(i), exact(i), 1e-15);
    // Independent check: each is a root of the characteristic polynomial det(P - lambda I).
    EXPECT_NEAR((P - symmetric(i) * Eigen::Matrix3d::Identity()).determinant(), 0.0, 1e-15);
  }
  const auto ts = implied_timescales(P, tridiagonal_pi(), 1.0, 2);
  EXPECT_NEAR(ts(0), -1.0 / std::log(0.98), 1e-10);
  EXPECT_NEAR(ts(1), -1.0 / std::log(0.96), 1e-10);
}

TEST(Spectral, TimescalesAreLagIndependentForExactExpectedCounts) {
  const auto P = tridiagonal_chain(0.01);
  const Eigen::Vector2d exact(-1.0 / std::log(0.98), -1.0 / std::log(0.96));
  for (int lag : {1, 2, 5, 10, 50}) {
    Eigen::MatrixXd Pk = Eigen::MatrixXd::Identity(3, 3);
    for (int i = 0; i < lag; ++i) Pk = (Pk * P).eval();
    const Eigen::MatrixXd C = 1e6 * tridiagonal_pi().asDiagonal() * Pk;
    const auto est = reversible_mle(C);
    ASSERT_TRUE(est.converged) << "lag " << lag;
    const auto ts = implied_timescales(est.T, est.pi, lag, 2);
    EXPECT_NEAR(ts(0) / exact(0), 1.0, 1e-10) << "lag " << lag;
    EXPECT_NEAR(ts(1) / exact(1), 1.0, 1e-10) << "lag " << lag;
  }
}

TEST(Spectral, SimulatedChainTimescalesWithinTenPercent) {
  const auto P = tridiagonal_chain(0.05);  // eigenvalues 1, 0.9, 0.8
  const std::vector<std::vector<int>> dtrajs = {
      trails::test_support::sample_chain(P, 200000, 20260101)};
  const Eigen::Vector2d exact(-1.0 / std::log(0.9), -1.0 / std::log(0.8));
  const std::vector<int> lags = {1, 2, 5};
  const auto sweep = implied_timescales_sweep(dtrajs, lags, 2);
  ASSERT_EQ(sweep.timescales.rows(), 3);
  for (std::size_t a = 0; a < lags.size(); ++a) {
    EXPECT_EQ(sweep.n_active[a], 3);
    EXPECT_TRUE(sweep.converged[a]);
    for (int i = 0; i < 2; ++i)
      EXPECT_NEAR(sweep.timescales(static_cast<Eigen::Index>(a), i) / exact(i), 1.0, 0.10)
          << "lag " << lags[a] << " timescale " << i;
  }
}

TEST(Spectral, SweepReportsDegenerateLagsAsNaN) {
  const std::vector<std::vector<int>> dtrajs = {{0, 1, 0, 1, 1, 0}};
  const std::vector<int> lags = {1, 10};
  const auto sweep = implied_timescales_sweep(dtrajs, lags, 3);
  EXPECT_EQ(sweep.n_active, (std::vector<int>{2, 1}));
  EXPECT_TRUE(std::isfinite(sweep.timescales(0, 0)));
  EXPECT_TRUE(std::isnan(sweep.timescales(0, 1)));  // only n_active - 1 timescales exist
  EXPECT_TRUE(std::isnan(sweep.timescales(1, 0)));  // lag longer than the trajectory
  EXPECT_FALSE(sweep.converged[1]);
}

TEST(Spectral, EdgeValuesAndMisuse) {
  const Eigen::Vector3d ev(1.0, 1.0, 0.0);
  const auto ts = timescales_from_eigenvalues(ev, 1.0, 2);
  EXPECT_TRUE(std::isinf(ts(0)));
  EXPECT_EQ(ts(1), 0.0);
  try {
    timescales_from_eigenvalues(ev, 1.0, 3);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("k <= 2 (n_states - 1), got 3"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(timescales_from_eigenvalues(ev, 0.0, 1), InputError);
  EXPECT_THROW(eigenvalues(Eigen::MatrixXd::Ones(2, 3)), InputError);
  EXPECT_THROW(eigenvalues(Eigen::MatrixXd::Identity(2, 2), Eigen::Vector3d::Ones()), InputError);
  EXPECT_THROW(eigenvalues(Eigen::MatrixXd::Identity(2, 2), Eigen::Vector2d(1.0, 0.0)), InputError);
  const std::vector<int> bad_lags = {1, 0};
  EXPECT_THROW(implied_timescales_sweep({{0, 1}}, bad_lags, 1), InputError);
  const std::vector<int> lags = {1};
  EXPECT_THROW(implied_timescales_sweep({{0, 1}}, lags, 0), InputError);
}

TEST(Spectral, LanczosLeadingEigenvaluesMatchDense) {
  // A 300-state reversible chain from random symmetric weights with a slow 3-block structure.
  const int n = 300;
  Rng rng(12);
  Eigen::MatrixXd W(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = i; j < n; ++j)
      W(i, j) = W(j, i) = (i / 100 == j / 100 ? 1.0 : 1e-3) * rng.uniform();
  const Eigen::VectorXd r = W.rowwise().sum();
  const Eigen::MatrixXd T = r.cwiseInverse().asDiagonal() * W;
  const Eigen::VectorXd pi = r / r.sum();
  const Eigen::VectorXd dense = eigenvalues(T, pi);
  const Eigen::VectorXd lanczos = leading_eigenvalues(T, pi, 5);
  ASSERT_EQ(lanczos.size(), 5);
  EXPECT_LT((lanczos - dense.head(5)).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_NEAR(lanczos(0), 1.0, 1e-12);
  EXPECT_GT(lanczos(2), 0.9);  // two slow block-exchange processes
  const Eigen::VectorXd again = leading_eigenvalues(T, pi, 5);
  EXPECT_EQ(lanczos, again);  // fixed start vector: deterministic
  EXPECT_THROW(leading_eigenvalues(T, pi, 0), InputError);
}
