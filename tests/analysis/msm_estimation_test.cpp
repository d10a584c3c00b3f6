// MLE transition matrices: closed-form 2-state answer, detailed balance and local optimality of
// the reversible MLE on random non-symmetric counts, the symmetric-count fixed point, the Newton
// solver against the plain fixed-point iteration (random sparse counts, a slowly mixing chain,
// the KKT conditions), and stationary distributions against analytic values.
#include "trails/analysis/msm_estimation.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "trails/core/error.h"
#include "trails/core/rng.h"

using trails::analysis::nonreversible_mle;
using trails::analysis::reversible_mle;
using trails::analysis::ReversibleMle;
using trails::analysis::ReversibleMleMethod;
using trails::analysis::ReversibleMleOptions;
using trails::analysis::stationary_distribution;
using trails::core::InputError;
using trails::core::Rng;

namespace {

Eigen::MatrixXd random_counts(std::uint64_t seed, int n) {
  Rng rng(seed);
  Eigen::MatrixXd C(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) C(i, j) = static_cast<double>(rng.below(40));
  C.diagonal().array() += 1.0;
  C(0, n - 1) = 0.0;  // one non-symmetric zero pattern
  C(n - 1, 0) = 7.0;
  return C;
}

double log_likelihood(const Eigen::MatrixXd& C, const Eigen::MatrixXd& T) {
  double ll = 0.0;
  for (Eigen::Index i = 0; i < C.rows(); ++i)
    for (Eigen::Index j = 0; j < C.cols(); ++j)
      if (C(i, j) > 0.0) ll += C(i, j) * std::log(T(i, j));
  return ll;
}

// Random sparse counts: about `density` of the entries drawn from 1..50, plus a ring
// i -> i + 1 -> ... so the matrix is strongly connected; some entries have no reverse count.
Eigen::MatrixXd random_sparse_counts(std::uint64_t seed, int n, double density) {
  Rng rng(seed);
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (rng.uniform() < density) C(i, j) = static_cast<double>(1 + rng.below(50));
  for (int i = 0; i < n; ++i) C(i, (i + 1) % n) += 1.0;
  return C;
}

// Counts at lag 3 of 50 trajectories of 4000 frames of a slowly mixing reversible chain:
// Metropolis moves i -> i +- 1 on a 40-state double well V(x) = 5 (x^2 - 1)^2, x in
// [-1.5, 1.5], each trajectory started in state 0, so the counts are far from symmetric
// (barrier about 5 kT; the plain fixed-point iteration needs >10^4 updates).
Eigen::MatrixXd slow_chain_counts(std::uint64_t seed) {
  constexpr int n = 40, lag = 3;
  auto V = [](int i) {
    const double x = -1.5 + 3.0 * (i + 0.5) / n;
    return 5.0 * (x * x - 1.0) * (x * x - 1.0);
  };
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(n, n);
  for (int traj = 0; traj < 50; ++traj) {
    Rng rng = Rng::stream(seed, "slow-chain", static_cast<std::uint64_t>(traj));
    std::vector<int> d = {0};
    for (int t = 1; t < 4000; ++t) {
      const int s = d.back();
      const int j = rng.uniform() < 0.5 ? s - 1 : s + 1;
      const double u = rng.uniform();
      d.push_back((j >= 0 && j < n && u < std::exp(-(V(j) - V(s)))) ? j : s);
    }
    for (std::size_t t = 0; t + lag < d.size(); ++t) C(d[t], d[t + lag]) += 1.0;
  }
  return C;
}

ReversibleMle plain_fixed_point(const Eigen::MatrixXd& C) {
  return reversible_mle(C, ReversibleMleOptions{1e-16, 20000000, ReversibleMleMethod::FixedPoint});
}

// KKT (stationarity) conditions of the reversible MLE with X = diag(pi) T, x = pi:
// S_ij = X_ij (c_i / x_i + c_j / x_j) wherever S_ij = C_ij + C_ji > 0, and X_ij = 0 elsewhere.
// Returns the largest relative violation.
double kkt_violation(const Eigen::MatrixXd& C, const ReversibleMle& est) {
  const Eigen::VectorXd c = C.rowwise().sum();
  const Eigen::MatrixXd X = est.pi.asDiagonal() * est.T;
  double worst = 0.0;
  for (Eigen::Index i = 0; i < C.rows(); ++i)
    for (Eigen::Index j = 0; j < C.cols(); ++j) {
      const double s = C(i, j) + C(j, i);
      if (s > 0.0) {
        const double v = X(i, j) * (c(i) / est.pi(i) + c(j) / est.pi(j));
        worst = std::max(worst, std::abs(v - s) / s);
      } else {
        worst = std::max(worst, std::abs(X(i, j)));
      }
    }
  return worst;
}

double detailed_balance_violation(const ReversibleMle& est) {
  const Eigen::MatrixXd F = est.pi.asDiagonal() * est.T;
  return (F - F.transpose()).cwiseAbs().maxCoeff();
}

}  // namespace

TEST(NonreversibleMle, TwoStateClosedForm) {
  Eigen::MatrixXd C(2, 2);
  C << 90, 10, 20, 80;
  Eigen::MatrixXd expected(2, 2);
  expected << 0.9, 0.1, 0.2, 0.8;
  EXPECT_TRUE(nonreversible_mle(C).isApprox(expected, 1e-15));
  // Every 2-state chain is reversible, so the reversible MLE is the same matrix.
  const auto rev = reversible_mle(C);
  EXPECT_TRUE(rev.converged);
  EXPECT_LT((rev.T - expected).cwiseAbs().maxCoeff(), 1e-10);
  // pi = (2/3, 1/3) from pi_0 * 0.1 = pi_1 * 0.2.
  EXPECT_NEAR(rev.pi(0), 2.0 / 3.0, 1e-10);
  const auto pi = stationary_distribution(expected);
  EXPECT_NEAR(pi(0), 2.0 / 3.0, 1e-14);
  EXPECT_NEAR(pi(1), 1.0 / 3.0, 1e-14);
}

TEST(ReversibleMle, DetailedBalanceOnRandomNonSymmetricCounts) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto C = random_counts(seed, 6);
    ASSERT_FALSE(C.isApprox(C.transpose()));
    const auto est = reversible_mle(C);
    ASSERT_TRUE(est.converged) << "seed " << seed << " iterations " << est.iterations;
    EXPECT_LT((est.T.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-14);
    EXPECT_NEAR(est.pi.sum(), 1.0, 1e-14);
    const Eigen::MatrixXd F = est.pi.asDiagonal() * est.T;
    EXPECT_LT((F - F.transpose()).cwiseAbs().maxCoeff(), 1e-12) << "seed " << seed;
    EXPECT_LT((stationary_distribution(est.T) - est.pi).cwiseAbs().maxCoeff(), 1e-10);
    // Zero pattern: T_ij > 0 exactly where C_ij + C_ji > 0.
    EXPECT_GT(est.T(0, C.rows() - 1), 0.0);
  }
}

TEST(ReversibleMle, IsALocalMaximumOfTheLikelihoodAmongReversibleMatrices) {
  const auto C = random_counts(11, 5);
  const auto est = reversible_mle(C);
  ASSERT_TRUE(est.converged);
  const double best = log_likelihood(C, est.T);
  const Eigen::MatrixXd X = est.pi.asDiagonal() * est.T;
  Rng rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    Eigen::MatrixXd E(5, 5);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) E(i, j) = rng.normal();
    const Eigen::MatrixXd Xp = X + 1e-4 * X.cwiseProduct(E + E.transpose());  // stays reversible
    const Eigen::VectorXd rows = Xp.rowwise().sum();
    const Eigen::MatrixXd Tp = rows.cwiseInverse().asDiagonal() * Xp;
    EXPECT_GT(best, log_likelihood(C, Tp)) << "trial " << trial;
  }
  // The unconstrained MLE is at least as likely as any reversible matrix.
  EXPECT_GE(log_likelihood(C, nonreversible_mle(C)), best);
}

TEST(ReversibleMle, SymmetricCountsGiveRowNormalisedCounts) {
  auto C = random_counts(7, 5);
  C = (C + C.transpose()).eval();
  const auto est = reversible_mle(C);
  EXPECT_TRUE(est.converged);
  EXPECT_LE(est.iterations, 2);
  EXPECT_LT((est.T - nonreversible_mle(C)).cwiseAbs().maxCoeff(), 1e-15);
  const Eigen::VectorXd rows = C.rowwise().sum();
  EXPECT_LT((est.pi - rows / rows.sum()).cwiseAbs().maxCoeff(), 1e-15);
}

TEST(ReversibleMle, ReportsNonConvergence) {
  const auto est = reversible_mle(random_counts(3, 6), ReversibleMleOptions{1e-300, 3});
  EXPECT_FALSE(est.converged);
  EXPECT_EQ(est.iterations, 3);
  EXPECT_LT((est.T.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-14);
}

TEST(StationaryDistribution, ThreeStateTridiagonalChain) {
  Eigen::MatrixXd P(3, 3);
  P << 0.98, 0.02, 0.0, 0.01, 0.98, 0.01, 0.0, 0.02, 0.98;
  const auto pi = stationary_distribution(P);
  EXPECT_NEAR(pi(0), 0.25, 1e-13);
  EXPECT_NEAR(pi(1), 0.5, 1e-13);
  EXPECT_NEAR(pi(2), 0.25, 1e-13);
}

TEST(MsmEstimation, RejectsBadInput) {
  EXPECT_THROW(nonreversible_mle(Eigen::MatrixXd::Ones(2, 3)), InputError);
  Eigen::MatrixXd C(2, 2);
  C << 1, 1, 0, 0;
  try {
    reversible_mle(C);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("row 1 has no counts"), std::string::npos) << e.what();
  }
  C << 1, -1, 1, 1;
  EXPECT_THROW(nonreversible_mle(C), InputError);
  EXPECT_THROW(reversible_mle(Eigen::MatrixXd::Ones(2, 2), ReversibleMleOptions{0.0, 10}),
               InputError);
  EXPECT_THROW(stationary_distribution(Eigen::MatrixXd(0, 0)), InputError);
}

TEST(ReversibleMle, NewtonAgreesWithThePlainFixedPointOnRandomSparseCounts) {
  // n = 30 takes the dense Newton path, n = 150 at 4% density the sparse one.
  for (const auto& [seed, n, density] :
       {std::tuple{21u, 30, 0.2}, std::tuple{22u, 30, 0.05}, std::tuple{23u, 150, 0.04}}) {
    const auto C = random_sparse_counts(seed, n, density);
    const auto newton = reversible_mle(C);
    const auto plain = plain_fixed_point(C);
    ASSERT_TRUE(newton.converged) << "seed " << seed;
    ASSERT_TRUE(plain.converged) << "seed " << seed;
    EXPECT_GT(newton.newton_steps, 0);
    EXPECT_LT((newton.T - plain.T).cwiseAbs().maxCoeff(), 1e-10) << "seed " << seed;
    EXPECT_LT((newton.pi - plain.pi).cwiseAbs().maxCoeff(), 1e-10) << "seed " << seed;
    EXPECT_LT(detailed_balance_violation(newton), 1e-12) << "seed " << seed;
    EXPECT_LT(kkt_violation(C, newton), 1e-10) << "seed " << seed;
    EXPECT_LT((newton.T.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-14);
  }
}

TEST(ReversibleMle, NewtonSolvesASlowlyMixingChainInFewSteps) {
  const auto C = slow_chain_counts(31);
  ASSERT_GE((C - C.transpose()).cwiseAbs().maxCoeff(), 10.0);
  const auto newton = reversible_mle(C);
  const auto plain = plain_fixed_point(C);
  ASSERT_TRUE(newton.converged);
  ASSERT_TRUE(plain.converged);
  // The plain iteration needs orders of magnitude more updates on this chain.
  EXPECT_LT(newton.iterations, 100);
  EXPECT_GT(plain.iterations, 100 * newton.iterations);
  EXPECT_LT((newton.T - plain.T).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((newton.pi - plain.pi).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT(detailed_balance_violation(newton), 1e-12);
  EXPECT_LT(kkt_violation(C, newton), 1e-10);
  // At the default tol the plain iteration stops early on a slow chain; Newton is at least as
  // close to the optimum as the tightly converged plain answer.
  EXPECT_LE(kkt_violation(C, newton), 10 * kkt_violation(C, plain) + 1e-13);
}

TEST(ReversibleMle, DisconnectedCountsFallBackToTheFixedPointIteration) {
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(4, 4);
  C << 5, 2, 0, 0, 1, 7, 0, 0, 0, 0, 3, 4, 0, 0, 2, 6;
  const auto newton = reversible_mle(C);
  const auto plain =
      reversible_mle(C, ReversibleMleOptions{1e-12, 1000000, ReversibleMleMethod::FixedPoint});
  EXPECT_EQ(newton.newton_steps, 0);
  EXPECT_EQ(newton.iterations, plain.iterations);
  EXPECT_TRUE(newton.T == plain.T);
  EXPECT_TRUE(newton.pi == plain.pi);
}

TEST(ReversibleMle, SameBitsOnRepeatedCalls) {
  const auto C = random_sparse_counts(41, 120, 0.05);
  const auto a = reversible_mle(C);
  const auto b = reversible_mle(C);
  EXPECT_TRUE(a.T == b.T);
  EXPECT_TRUE(a.pi == b.pi);
  EXPECT_EQ(a.iterations, b.iterations);
}
