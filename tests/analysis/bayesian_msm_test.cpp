// Bayesian MSM: posterior means approach the MLE and standard deviations shrink like 1/sqrt(N)
// (matching the asymptotic binomial sd); same seed same bits for any thread count.
#include "trails/analysis/bayesian_msm.h"

#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "support/markov.h"
#include "trails/core/error.h"

using namespace trails::analysis;

namespace {

// Exact expected counts N * diag(pi) P of the 2-state chain [[0.9, 0.1], [0.2, 0.8]].
Eigen::MatrixXd two_state_counts(double N) {
  Eigen::MatrixXd C(2, 2);
  C << 0.9 * 2 / 3, 0.1 * 2 / 3, 0.2 / 3, 0.8 / 3;
  return N * C;
}

// 3-state tridiagonal reversible chain with pi = (1/4, 1/2, 1/4), eigenvalues 1, 0.98, 0.96.
Eigen::MatrixXd three_state_counts(double N) {
  Eigen::MatrixXd P(3, 3);
  P << 0.98, 0.02, 0, 0.01, 0.98, 0.01, 0, 0.02, 0.98;
  return N * Eigen::Vector3d(0.25, 0.5, 0.25).asDiagonal() * P;
}

double sd_of_T01(const BayesianMsm& b) {
  double m = 0, q = 0;
  for (const auto& T : b.transition_matrices) m += T(0, 1);
  m /= double(b.transition_matrices.size());
  for (const auto& T : b.transition_matrices) q += (T(0, 1) - m) * (T(0, 1) - m);
  return std::sqrt(q / double(b.transition_matrices.size()));
}

double mean_of_T01(const BayesianMsm& b) {
  double m = 0;
  for (const auto& T : b.transition_matrices) m += T(0, 1);
  return m / double(b.transition_matrices.size());
}

}  // namespace

TEST(BayesianMsm, ReversibleTwoStateMatchesAsymptoticPosterior) {
  for (bool reversible : {true, false}) {
    double previous_sd = 0.0;
    for (double N : {3000.0, 300000.0}) {
      const auto b = estimate_bayesian_msm(
          trails::test_support::counts_model_of(two_state_counts(N)),
          {.n_samples = 400, .reversible = reversible, .seed = 5, .n_timescales = 1});
      const double c0 = N * 2.0 / 3.0;
      const double sd_expected = std::sqrt(0.1 * 0.9 / c0);
      const double sd = sd_of_T01(b);
      EXPECT_NEAR(sd / sd_expected, 1.0, 0.15) << "reversible " << reversible << " N " << N;
      // The posterior mean sits within a few sd/sqrt(samples) plus O(1/N) of the MLE 0.1.
      EXPECT_NEAR(mean_of_T01(b), 0.1, 4 * sd / 20 + 2.0 / c0);
      if (previous_sd > 0.0) {
        EXPECT_NEAR(previous_sd / sd, 10.0, 1.5);  // ~1/sqrt(N)
      }
      previous_sd = sd;
      EXPECT_EQ(b.timescales.rows(), 400);
      EXPECT_NEAR(b.stationary_mean(0), 2.0 / 3.0, 5 * b.stationary_std(0) / 20 + 1e-3);
    }
  }
}

TEST(BayesianMsm, TimescaleMeanApproachesMleAndStdShrinks) {
  const double t2 = -1.0 / std::log(0.98), t3 = -1.0 / std::log(0.96);
  double previous_rel_sd = 0.0;
  for (double N : {2e4, 2e6}) {
    const auto b =
        estimate_bayesian_msm(trails::test_support::counts_model_of(three_state_counts(N)),
                              {.n_samples = 100, .seed = 1, .n_timescales = 2});
    const Eigen::VectorXd mle = b.point_estimate.timescales(2);
    EXPECT_NEAR(mle(0), t2, 1e-6 * t2);  // exact counts: the MLE is the true chain
    EXPECT_NEAR(mle(1), t3, 1e-6 * t3);
    const double rel_sd = b.timescales_std(0) / t2;
    EXPECT_LT(std::abs(b.timescales_mean(0) - t2) / t2, 5 * rel_sd / 10 + 0.01);
    if (previous_rel_sd > 0.0) {
      EXPECT_NEAR(previous_rel_sd / rel_sd, 10.0, 2.5);
    }
    previous_rel_sd = rel_sd;
  }
}

TEST(BayesianMsm, SameSeedSameBitsAnyThreadCount) {
  Eigen::MatrixXd C(3, 3);
  C << 50, 3, 0, 4, 70, 6, 0, 5, 40;
  BayesianMsmOptions o{.n_samples = 8, .seed = 77, .n_threads = 1, .n_timescales = 2};
  const auto a = estimate_bayesian_msm(trails::test_support::counts_model_of(C), o);
  o.n_threads = 4;
  const auto b = estimate_bayesian_msm(trails::test_support::counts_model_of(C), o);
  ASSERT_EQ(a.transition_matrices.size(), 8u);
  for (int s = 0; s < 8; ++s)
    EXPECT_EQ(std::memcmp(a.transition_matrices[s].data(), b.transition_matrices[s].data(),
                          9 * sizeof(double)),
              0);
  EXPECT_EQ(a.timescales, b.timescales);
  // Detailed balance of every reversible sample; T(0,2) stays zero as C(0,2) = C(2,0) = 0.
  for (const auto& T : a.transition_matrices) {
    const Eigen::VectorXd pi = stationary_distribution(T);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_NEAR(pi(i) * T(i, j), pi(j) * T(j, i), 1e-14);
    EXPECT_EQ(T(0, 2), 0.0);
  }
  o.seed = 78;
  const auto c = estimate_bayesian_msm(trails::test_support::counts_model_of(C), o);
  EXPECT_NE(a.timescales, c.timescales);
  EXPECT_THROW(estimate_bayesian_msm(trails::test_support::counts_model_of(C), {.n_samples = 0}),
               trails::core::InputError);
}
