// MSM VAMP-2: closed form for 2 states, the Frobenius identity, dim truncation, misuse.
#include "trails/analysis/vamp.h"

#include <cmath>

#include <gtest/gtest.h>

#include "trails/core/error.h"

using namespace trails::analysis;

TEST(Vamp, TwoStateSymmetricCountsClosedForm) {
  // Symmetric C = N diag(pi) T for T = [[0.9,0.1],[0.2,0.8]]: K is the symmetrised T, singular
  // values |eigenvalues| = 1 and 0.7, so VAMP-2 = 1 + 0.49.
  Eigen::MatrixXd C(2, 2);
  C << 0.6, 0.2 / 3, 0.2 / 3, 0.8 / 3;
  EXPECT_NEAR(msm_vamp_score(C), 1.49, 1e-12);
  EXPECT_NEAR(msm_vamp_score(C, 2.0, 1), 1.0, 1e-12);
  EXPECT_NEAR(msm_vamp_score(C, 1.0), 1.7, 1e-12);
}

TEST(Vamp, FrobeniusIdentityForAnyCounts) {
  Eigen::MatrixXd C(3, 3);
  C << 10, 2, 0, 3, 20, 4, 1, 5, 30;
  double frob = 0.0;
  const Eigen::VectorXd row = C.rowwise().sum(), col = C.colwise().sum().transpose();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) frob += C(i, j) * C(i, j) / (row(i) * col(j));
  EXPECT_NEAR(msm_vamp_score(C), frob, 1e-12);
  EXPECT_GE(msm_vamp_score(C), 1.0 - 1e-12);
  EXPECT_THROW(msm_vamp_score(C, 0.5), trails::core::InputError);
  EXPECT_THROW(msm_vamp_score(Eigen::MatrixXd::Zero(2, 3)), trails::core::InputError);
}
