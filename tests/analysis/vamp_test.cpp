// VAMP-2 scores: closed forms for AR(1) covariances and MSM count matrices, cross-checked paths.
#include "trails/analysis/vamp.h"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>

#include "spaces_test_util.h"
#include "trails/analysis/counting.h"
#include "trails/analysis/msm_estimation.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

namespace trails::analysis {
namespace {

Covariances exact_ar1_1d(double a, int tau) {
  Covariances cov;
  cov.lagtime = tau;
  cov.n_samples = 1e6;
  const double v = 1.0 / (1.0 - a * a);
  cov.c00 = cov.ctt = Eigen::MatrixXd::Constant(1, 1, v);
  cov.c0t = Eigen::MatrixXd::Constant(1, 1, v * std::pow(a, tau));
  cov.mean_0 = cov.mean_t = Eigen::VectorXd::Zero(1);
  cov.mean_removed = true;
  return cov;
}

TEST(Vamp, OneDimensionalAr1ScoreIsAutocorrelationSquaredPlusOne) {
  for (int tau : {1, 4}) {
    const Covariances cov = exact_ar1_1d(0.8, tau);
    EXPECT_NEAR(vamp2_score(cov), std::pow(0.8, 2 * tau) + 1.0, 1e-12);
    Vamp2Options no_const;
    no_const.include_constant = false;
    EXPECT_NEAR(vamp2_score(cov, no_const), std::pow(0.8, 2 * tau), 1e-12);
    EXPECT_NEAR(vamp2_score(cov, Vamp2Options::trails_md_feature_selection()),
                std::pow(0.8, 2 * tau), 1e-12);
  }
}

TEST(Vamp, NonReversibleProcessMatchesIndependentEigenvalueRoute) {
  // x_{t+1} = A x_t + noise with a non-symmetric A; stationary C0 solves C0 = A C0 A^T + I.
  Eigen::Matrix2d A;
  A << 0.7, 0.4, -0.2, 0.5;
  Eigen::Matrix2d C0 = Eigen::Matrix2d::Identity();
  for (int k = 0; k < 2000; ++k) C0 = A * C0 * A.transpose() + Eigen::Matrix2d::Identity();
  Covariances cov;
  cov.lagtime = 1;
  cov.c00 = cov.ctt = C0;
  cov.c0t = C0 * A.transpose();  // E[x_t x_{t+1}^T]
  cov.mean_0 = cov.mean_t = Eigen::VectorXd::Zero(2);
  cov.mean_removed = true;
  // sigma^2 are the eigenvalues of C00^{-1} C0t Ctt^{-1} C0t^T.
  const Eigen::Matrix2d M = C0.inverse() * cov.c0t * C0.inverse() * cov.c0t.transpose();
  Eigen::EigenSolver<Eigen::Matrix2d> es(M);
  const double expect = es.eigenvalues().real().sum() + 1.0;
  EXPECT_NEAR(vamp2_score(cov), expect, 1e-12);
  const VampDecomposition dec = vamp_decomposition(cov);
  EXPECT_NEAR(dec.singular_values.squaredNorm() + 1.0, expect, 1e-12);
  // Singular functions are whitened: U^T C00 U = I, U^T C0t V = diag(sigma).
  EXPECT_LT((dec.left.transpose() * C0 * dec.left - Eigen::Matrix2d::Identity()).norm(), 1e-12);
  const Eigen::MatrixXd S = dec.left.transpose() * cov.c0t * dec.right;
  EXPECT_LT((S - Eigen::MatrixXd(dec.singular_values.asDiagonal())).norm(), 1e-12);
  Vamp2Options first;
  first.dim = 1;
  EXPECT_NEAR(vamp2_score(cov, first), dec.singular_values(0) * dec.singular_values(0) + 1.0,
              1e-12);
}

TEST(Vamp, ColumnSubsetsAndDegenerateFeatures) {
  Covariances cov;
  cov.lagtime = 1;
  cov.c00 = cov.ctt = Eigen::Vector3d(1.0, 2.0, 0.0).asDiagonal();
  cov.c0t = Eigen::Vector3d(0.9, 1.0, 0.0).asDiagonal();  // autocorrelations 0.9, 0.5, constant
  cov.mean_0 = cov.mean_t = Eigen::VectorXd::Zero(3);
  cov.mean_removed = true;
  const auto fs = Vamp2Options::trails_md_feature_selection();
  const std::vector<int> c0{0}, c1{1}, c2{2}, c01{0, 1};
  EXPECT_NEAR(vamp2_score(cov, c0, fs), 0.81, 1e-12);
  EXPECT_NEAR(vamp2_score(cov, c1, fs), 0.25, 1e-12);
  EXPECT_NEAR(vamp2_score(cov, c2, fs), 0.0, 1e-15);  // rank zero scores 0, no error
  EXPECT_NEAR(vamp2_score(cov, c01, fs), 1.06, 1e-12);
  EXPECT_NEAR(vamp2_score(cov, fs), 1.06, 1e-12);  // the constant column is cut
  const std::vector<int> bad{3};
  EXPECT_THROW(vamp2_score(cov, bad, fs), core::InputError);
  Covariances inst = cov;
  inst.lagtime = 0;
  EXPECT_THROW(vamp2_score(inst), core::InputError);
}

TEST(Vamp, InverseSqrtWhitensAndCutsByRule) {
  Eigen::Matrix3d C;
  C << 4, 2, 0, 2, 2, 0, 0, 0, 1e-9;
  const InverseSqrt abs = spd_inverse_sqrt(C, 1e-6);
  EXPECT_EQ(abs.rank(), 2);
  EXPECT_LT((abs.L.transpose() * C * abs.L - Eigen::Matrix2d::Identity()).norm(), 1e-12);
  EXPECT_EQ(spd_inverse_sqrt(C, 1e-12).rank(), 3);
  EXPECT_EQ(spd_inverse_sqrt(C * 1e-5, 1e-6).rank(), 2);  // absolute: 1e-14 is cut
  EXPECT_EQ(spd_inverse_sqrt(C * 1e-5, 1e-6, EpsilonRule::RelativeToLargest).rank(), 2);
  EXPECT_EQ(spd_inverse_sqrt(C * 1e-8, 1e-6).rank(), 0);  // all below the absolute cut
  EXPECT_EQ(spd_inverse_sqrt(C * 1e-8, 1e-6, EpsilonRule::RelativeToLargest).rank(), 2);
}

TEST(Vamp, MsmScoreOfTwoStateCounts) {
  Eigen::Matrix2d C;
  C << 90, 10, 20, 80;
  const Eigen::MatrixXd T = nonreversible_mle(C);
  // In-sample, all singular values: sum_ij C_ij^2 / (r_i c_j), r = (100, 100), c = (110, 90).
  const double expect = 8100.0 / 11000 + 100.0 / 9000 + 400.0 / 11000 + 6400.0 / 9000;
  EXPECT_NEAR(msm_vamp2_score(T, C, C), expect, 1e-12);
  EXPECT_NEAR(msm_vamp2_score(T, C, C, 1), 1.0, 1e-12);  // the constant singular function only
  // Population score in pi: reversible T gives sum of squared eigenvalues 1 + 0.7^2.
  EXPECT_NEAR(msm_vamp2_score_stationary(T, Eigen::Vector2d(2.0 / 3, 1.0 / 3)), 1.49, 1e-12);
  Eigen::Matrix2d other;
  other << 50, 50, 50, 50;  // test data without kinetics: only the constant survives
  EXPECT_NEAR(msm_vamp2_score(T, C, other), 1.0, 1e-12);
  EXPECT_THROW(msm_vamp2_score(T, C, Eigen::Matrix3d::Ones()), core::InputError);
  EXPECT_THROW(msm_vamp2_score_stationary(T, Eigen::Vector2d(1.0, 0.0)), core::InputError);
}

TEST(Vamp, MsmScoreEqualsFeatureScoreOfIndicatorFunctions) {
  // A 3-state chain: the MSM score equals the VAMP-2 of one-hot features without mean removal.
  Eigen::Matrix3d P;
  P << 0.9, 0.08, 0.02, 0.05, 0.9, 0.05, 0.1, 0.1, 0.8;
  auto rng = core::Rng::stream(3, "vamp-msm");
  std::vector<std::vector<int>> dtrajs(4);
  RunningMoments acc(3, 2);
  for (auto& traj : dtrajs) {
    int s = 0;
    for (int t = 0; t < 3000; ++t) {
      traj.push_back(s);
      const double u = rng.uniform();
      s = u < P(s, 0) ? 0 : (u < P(s, 0) + P(s, 1) ? 1 : 2);
    }
    FrameMatrix onehot = FrameMatrix::Zero(static_cast<Eigen::Index>(traj.size()), 3);
    for (std::size_t t = 0; t < traj.size(); ++t) onehot(static_cast<Eigen::Index>(t), traj[t]) = 1;
    acc.add_segment(onehot);
  }
  const Eigen::MatrixXd C = count_matrix(dtrajs, 2, 3);
  const Eigen::MatrixXd T = reversible_mle(C).T;
  const double msm = msm_vamp2_score(T, C, C);
  const double features = vamp2_score(acc.lagged({MeanRemoval::None, false}));
  EXPECT_NEAR(msm, features, 1e-10);
  EXPECT_GT(msm, 1.0);
}

}  // namespace
}  // namespace trails::analysis
