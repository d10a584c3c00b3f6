// PCA of anisotropic Gaussians: exact covariances and a seeded sample.
#include "trails/analysis/pca.h"

#include <gtest/gtest.h>

#include <cmath>

#include "spaces_test_util.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

namespace trails::analysis {
namespace {

Eigen::Matrix3d rotation() {
  const double c = std::cos(0.5), s = std::sin(0.5), c2 = std::cos(-0.8), s2 = std::sin(-0.8);
  Eigen::Matrix3d R1, R2;
  R1 << c, -s, 0, s, c, 0, 0, 0, 1;
  R2 << c2, 0, s2, 0, 1, 0, -s2, 0, c2;
  return R1 * R2;
}

TEST(Pca, ExactCovarianceGivesAxesAndVariances) {
  const Eigen::Matrix3d R = rotation();
  const Eigen::Vector3d var(9.0, 1.0, 0.09);
  Covariances cov;
  cov.n_samples = 1001;
  cov.c00 = R * var.asDiagonal() * R.transpose();
  cov.mean_0 = cov.mean_t = Eigen::Vector3d(1, 2, 3);
  cov.mean_removed = true;
  const PcaModel m = fit_pca(cov);
  ASSERT_EQ(m.dim, 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(m.explained_variance(i), var(i) * 1001.0 / 1000.0, 1e-12);  // n - 1 (sklearn)
    EXPECT_NEAR(std::abs(m.components.col(i).dot(R.col(i))), 1.0, 1e-12);
    Eigen::Index imax = 0;
    m.components.col(i).cwiseAbs().maxCoeff(&imax);
    EXPECT_GT(m.components(imax, i), 0.0);
  }
  EXPECT_NEAR(m.explained_variance_ratio(0), 9.0 / 10.09, 1e-12);
  // Ratios 0.8920, 0.0991, 0.0089: cumulative 0.8920, 0.9911, 1.
  for (auto [cut, dim] : {std::pair{0.5, 1}, {0.9, 2}, {0.99, 2}, {0.995, 3}}) {
    PcaOptions o;
    o.var_cutoff = cut;
    EXPECT_EQ(fit_pca(cov, o).dim, dim) << cut;
  }
  PcaOptions two;
  two.dim = 2;
  const PcaModel m2 = fit_pca(cov, two);
  FrameMatrix x(1, 3);
  x << 1 + R(0, 0), 2 + R(1, 0), 3 + R(2, 0);  // mean + first axis
  const FrameMatrix y = m2.transform(x);
  EXPECT_NEAR(std::abs(y(0, 0)), 1.0, 1e-12);
  EXPECT_NEAR(y(0, 1), 0.0, 1e-12);
}

TEST(Pca, SampledGaussianRecoversAxes) {
  const Eigen::Matrix3d R = rotation();
  const Eigen::Vector3d sd(3.0, 1.0, 0.3);
  auto rng = core::Rng::stream(5, "pca-test");
  FrameMatrix x(100000, 3);
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    const Eigen::Vector3d z(sd(0) * rng.normal(), sd(1) * rng.normal(), sd(2) * rng.normal());
    x.row(t) = (R * z + Eigen::Vector3d(5, -5, 1)).transpose();
  }
  RunningMoments acc(3, 0);
  const std::vector<std::int64_t> lengths{30000, 1, 49999, 20000};
  acc.add_segments(x, lengths);
  const PcaModel m = fit_pca(acc);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(m.explained_variance(i) / (sd(i) * sd(i)), 1.0, 0.02);
    EXPECT_GT(std::abs(m.components.col(i).dot(R.col(i))), 0.999);
  }
  EXPECT_NEAR(m.projection.mean(0), 5.0, 0.05);
}

TEST(Pca, RejectsBadInput) {
  RunningMoments one(2, 0);
  one.add_segment(FrameMatrix::Ones(1, 2));
  EXPECT_THROW(fit_pca(one), core::InputError);
  RunningMoments acc(2, 0);
  acc.add_segment(testing::random_frames(10, 2, 1));
  PcaOptions o;
  o.var_cutoff = 1.0;
  EXPECT_THROW(fit_pca(acc, o), core::InputError);
  o = {};
  o.dim = 0;
  EXPECT_THROW(fit_pca(acc, o), core::InputError);
  EXPECT_THROW(fit_pca(acc.instantaneous(false)), core::InputError);
}

}  // namespace
}  // namespace trails::analysis
