// MLE transition matrices: closed-form 2-state answer, detailed balance and local optimality of
// the reversible MLE on random non-symmetric counts, the symmetric-count fixed point, and
// stationary distributions against analytic values.
#include "trails/analysis/msm_estimation.h"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "trails/core/error.h"
#include "trails/core/rng.h"

using trails::analysis::nonreversible_mle;
using trails::analysis::reversible_mle;
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
