// TICA of linear AR(1) processes: exact population covariances and a long seeded trajectory.
#include "trails/analysis/tica.h"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "spaces_test_util.h"
#include "trails/core/error.h"

namespace trails::analysis {
namespace {

// A symmetric A = Q diag(a) Q^T with unit noise has C0 = (I - A^2)^{-1} and
// C0t(tau) = C0 A^tau; both commute with A, so C0t r = lambda C0 r has r = Q e_i, lambda = a_i^tau.
struct ExactAr1 {
  Eigen::MatrixXd Q, A, C0;
  Eigen::VectorXd a;
  ExactAr1() {
    a = Eigen::Vector3d(0.95, 0.6, -0.3);
    const double c = std::cos(0.4), s = std::sin(0.4), c2 = std::cos(1.1), s2 = std::sin(1.1);
    Eigen::Matrix3d R1, R2;
    R1 << c, -s, 0, s, c, 0, 0, 0, 1;
    R2 << 1, 0, 0, 0, c2, -s2, 0, s2, c2;
    Q = R1 * R2;
    A = Q * a.asDiagonal() * Q.transpose();
    C0 = (Eigen::MatrixXd::Identity(3, 3) - A * A).inverse();
  }
  Covariances covariances(int tau, Eigen::VectorXd mean = Eigen::VectorXd::Zero(3)) const {
    Covariances cov;
    cov.lagtime = tau;
    cov.n_samples = 1e6;
    cov.c00 = cov.ctt = C0;
    Eigen::MatrixXd Ap = Eigen::MatrixXd::Identity(3, 3);
    for (int k = 0; k < tau; ++k) Ap = Ap * A;
    cov.c0t = C0 * Ap;
    cov.mean_0 = cov.mean_t = mean;
    cov.mean_removed = true;
    cov.symmetrized = true;
    return cov;
  }
};

TEST(Tica, ExactCovariancesGiveEigenvaluesOfA) {
  const ExactAr1 ar;
  for (int tau : {1, 2, 3}) {
    TicaOptions o;
    o.scaling = TicaScaling::None;
    const TicaModel m = fit_tica(ar.covariances(tau), o);
    ASSERT_EQ(m.rank, 3);
    ASSERT_EQ(m.dim, 3);
    // Sorted by |lambda|: 0.95^tau, 0.6^tau, (-0.3)^tau.
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(m.eigenvalues(i), std::pow(ar.a(i), tau), 1e-12);
    // Eigenvectors are C0-orthonormal and parallel to the columns of Q.
    const Eigen::MatrixXd G = m.eigenvectors.transpose() * ar.C0 * m.eigenvectors;
    EXPECT_LT((G - Eigen::MatrixXd::Identity(3, 3)).cwiseAbs().maxCoeff(), 1e-12);
    for (int i = 0; i < 3; ++i) {
      const Eigen::VectorXd r = m.eigenvectors.col(i).normalized();
      EXPECT_NEAR(std::abs(r.dot(ar.Q.col(i))), 1.0, 1e-12);
      Eigen::Index imax = 0;
      m.eigenvectors.col(i).cwiseAbs().maxCoeff(&imax);
      EXPECT_GT(m.eigenvectors(imax, i), 0.0);  // canonical sign
    }
    const Eigen::VectorXd ts = m.timescales();
    EXPECT_NEAR(ts(0), -1.0 / std::log(0.95), 1e-9);  // lag-independent: -tau / ln(a^tau)
    EXPECT_NEAR(ts(2), -1.0 / std::log(0.3), 1e-9);
  }
}

TEST(Tica, KineticMapScalesByEigenvaluesAndProjects) {
  const ExactAr1 ar;
  const Eigen::VectorXd mean = Eigen::Vector3d(1.0, -2.0, 0.5);
  TicaOptions o;
  o.dim = 2;
  const TicaModel m = fit_tica(ar.covariances(1, mean), o);
  ASSERT_EQ(m.dim, 2);
  ASSERT_EQ(m.projection.output_dim(), 2);
  for (int i = 0; i < 2; ++i)
    EXPECT_LT((m.projection.coefficients.col(i) - m.eigenvectors.col(i) * m.eigenvalues(i))
                  .cwiseAbs()
                  .maxCoeff(),
              1e-14);
  FrameMatrix frames(2, 3);
  frames << 1.0, -2.0, 0.5, 2.0, 0.0, 1.0;
  const FrameMatrix y = m.transform(frames);
  EXPECT_LT(y.row(0).cwiseAbs().maxCoeff(), 1e-14);  // the mean maps to the origin
  const Eigen::RowVectorXd expect = (frames.row(1) - mean.transpose()) * m.projection.coefficients;
  EXPECT_LT((y.row(1) - expect).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(Tica, CommuteMapFollowsDeeptimeFormula) {
  const ExactAr1 ar;
  TicaOptions o;
  o.scaling = TicaScaling::CommuteMap;
  const int tau = 2;
  const TicaModel m = fit_tica(ar.covariances(tau), o);
  for (int i = 0; i < 3; ++i) {
    const double t = 1.0 - tau / std::log(std::abs(m.eigenvalues(i)));
    const double reg = 0.5 * t * std::max(std::tanh(std::numbers::pi * (t - tau) / tau + 1.0), 0.0);
    const Eigen::VectorXd expect = m.eigenvectors.col(i) * std::sqrt(reg / 2.0);
    EXPECT_LT((m.projection.coefficients.col(i) - expect).cwiseAbs().maxCoeff(), 1e-14);
  }
}

TEST(Tica, DimensionByKineticVariance) {
  const ExactAr1 ar;  // lambda^2 = 0.9025, 0.36, 0.09: cumulative 0.6673, 0.9335, 1
  for (auto [cut, dim] : {std::pair{0.5, 1}, {0.66, 1}, {0.7, 2}, {0.93, 2}, {0.95, 3}, {1.0, 3}}) {
    TicaOptions o;
    o.var_cutoff = cut;
    o.dim = 1;  // var_cutoff takes precedence
    EXPECT_EQ(fit_tica(ar.covariances(1), o).dim, dim) << cut;
  }
  TicaOptions o;
  o.var_cutoff = 1.5;
  EXPECT_THROW(fit_tica(ar.covariances(1), o), core::InputError);
}

TEST(Tica, SimulatedAr1RecoversEigenvaluesOverManySegments) {
  Eigen::Matrix2d A;
  const double c = std::cos(0.7), s = std::sin(0.7);
  Eigen::Matrix2d Q;
  Q << c, -s, s, c;
  A = Q * Eigen::Vector2d(0.9, 0.5).asDiagonal() * Q.transpose();
  RunningMoments acc(2, 1);
  for (std::uint64_t seg = 0; seg < 20; ++seg)
    acc.add_segment(testing::simulate_ar1(A, 10000, 100 + seg));
  const TicaModel m = fit_tica(acc);
  ASSERT_EQ(m.rank, 2);
  // Statistical error at 2e5 frames is ~0.003 (seeded, so this is one fixed draw).
  EXPECT_NEAR(m.eigenvalues(0), 0.9, 0.02);
  EXPECT_NEAR(m.eigenvalues(1), 0.5, 0.02);
  EXPECT_NEAR(std::abs(m.eigenvectors.col(0).normalized().dot(Q.col(0))), 1.0, 1e-3);
}

TEST(Tica, MatchesGeneralizedEigenSolverOnBruteForceCovariances) {
  const ExactAr1 ar;
  std::vector<FrameMatrix> segs;
  for (std::uint64_t k = 0; k < 5; ++k)
    segs.push_back(testing::simulate_ar1(ar.A, 3000 + 7 * k, k));
  const int lag = 3;
  RunningMoments acc(3, lag);
  for (const auto& s : segs) acc.add_segment(s);
  const FrameMatrix X = testing::stack_rows(segs, lag, false),
                    Y = testing::stack_rows(segs, lag, true);
  const Eigen::VectorXd mu = 0.5 * (testing::mean_of(X) + testing::mean_of(Y));
  const Eigen::MatrixXd c00 =
      0.5 * (testing::cross_cov(X, mu, X, mu) + testing::cross_cov(Y, mu, Y, mu));
  const Eigen::MatrixXd c0t =
      0.5 * (testing::cross_cov(X, mu, Y, mu) + testing::cross_cov(Y, mu, X, mu));
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> ges(c0t, c00);
  Eigen::VectorXd ref = ges.eigenvalues();
  std::sort(ref.data(), ref.data() + ref.size(),
            [](double a, double b) { return std::abs(a) > std::abs(b); });
  const TicaModel m = fit_tica(acc);
  ASSERT_EQ(m.rank, 3);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(m.eigenvalues(i), ref(i), 1e-10);
  EXPECT_LT((m.projection.mean - mu).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(Tica, RankCutDropsDuplicateAndConstantFeatures) {
  Eigen::Matrix2d A;
  A << 0.8, 0.0, 0.0, 0.3;
  const FrameMatrix base = testing::simulate_ar1(A, 5000, 7);
  FrameMatrix f(base.rows(), 4);
  f.col(0) = base.col(0);
  f.col(1) = base.col(1);
  f.col(2) = base.col(0);                                 // duplicate
  f.col(3) = FrameMatrix::Constant(base.rows(), 1, 3.0);  // constant
  RunningMoments acc(4, 1);
  acc.add_segment(f);
  const TicaModel m = fit_tica(acc);
  EXPECT_EQ(m.rank, 2);
  EXPECT_EQ(m.dim, 2);
  EXPECT_NEAR(m.eigenvalues(0), 0.8, 0.05);

  RunningMoments flat(1, 1);
  flat.add_segment(FrameMatrix::Constant(10, 1, 2.0));
  EXPECT_THROW(fit_tica(flat), core::InputError);
  RunningMoments nonsym(2, 1);
  nonsym.add_segment(base);
  EXPECT_THROW(fit_tica(nonsym.lagged({MeanRemoval::Separate, false})), core::InputError);
}

TEST(Tica, ProjectionRoundTripsThroughFlatState) {
  const ExactAr1 ar;
  const TicaModel m = fit_tica(ar.covariances(1, Eigen::Vector3d(1, 2, 3)), {});
  const auto flat = m.projection.to_flat();
  const LinearProjection back = LinearProjection::from_flat(flat);
  EXPECT_EQ(back.coefficients, m.projection.coefficients);
  EXPECT_EQ(back.mean, m.projection.mean);
  auto bad = flat;
  bad.pop_back();
  EXPECT_THROW(LinearProjection::from_flat(bad), core::InputError);
}

}  // namespace
}  // namespace trails::analysis
