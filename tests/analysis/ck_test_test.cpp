// Chapman-Kolmogorov test: a simulated Markov chain passes (with Prinz errors and with Bayesian
// errors); the same chain observed through an aggregation that hides a trap is non-Markovian at
// short lags and fails.
#include "trails/analysis/ck_test.h"

#include <vector>

#include <gtest/gtest.h>

#include "support/markov.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

using namespace trails::analysis;

namespace {

// Hidden chain: traps 0 and 3 (sticky), shallow states 1 and 2 with a fast barrier between them.
Eigen::MatrixXd hidden_chain() {
  Eigen::MatrixXd P(4, 4);
  P << 0.99, 0.01, 0, 0, 0.1, 0.8, 0.1, 0, 0, 0.1, 0.8, 0.1, 0, 0, 0.01, 0.99;
  return P;
}

}  // namespace

TEST(CkTest, MarkovChainPasses) {
  const std::vector<std::vector<int>> d = {
      trails::test_support::sample_chain(hidden_chain(), 400000, 21)};
  const auto model = estimate_msm(d, 1);
  const Eigen::MatrixXd chi = crisp_memberships(4, {{0, 1}, {2, 3}});
  const auto ck = chapman_kolmogorov_test(d, model, chi, {.max_multiple = 8});
  EXPECT_TRUE(ck.passed) << ck.max_deviation_sigma;
  ASSERT_EQ(ck.lags, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_LT((ck.predicted[0] - ck.estimated[0]).cwiseAbs().maxCoeff(), 1e-12);  // k = 1
  EXPECT_LT((ck.predicted[7].rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-12);
  EXPECT_LT(ck.max_deviation_sigma, 3.0);
  EXPECT_TRUE(ck.predicted_std.empty());

  const auto bayes = chapman_kolmogorov_test(
      d, model, chi, {.max_multiple = 4, .n_bayesian_samples = 20, .seed = 3});
  EXPECT_TRUE(bayes.passed) << bayes.max_deviation_sigma;
  ASSERT_EQ(bayes.predicted_std.size(), 4u);
  EXPECT_GT(bayes.predicted_std[3](0, 0), 0.0);
  EXPECT_GT(bayes.estimated_std[3](0, 0), 0.0);
}

TEST(CkTest, HiddenTrapFails) {
  std::vector<int> h = trails::test_support::sample_chain(hidden_chain(), 400000, 22);
  for (int& s : h) s = s < 2 ? 0 : 1;  // observe only the side: trap and shallow merge
  const std::vector<std::vector<int>> d = {h};
  const auto model = estimate_msm(d, 1);
  const auto ck =
      chapman_kolmogorov_test(d, model, crisp_memberships(2, {{0}, {1}}), {.max_multiple = 8});
  EXPECT_FALSE(ck.passed);
  EXPECT_GT(ck.max_deviation, 0.015);       // observed 0.024-0.028 over seeds 21-25
  EXPECT_GT(ck.max_deviation_sigma, 10.0);  // observed 18-21; Markov case 0.3-0.8
}

TEST(CkTest, Misuse) {
  const std::vector<std::vector<int>> d = {{0, 1, 0, 1, 1, 0}};
  const auto model = estimate_msm(d, 1);
  EXPECT_THROW(chapman_kolmogorov_test(d, model, crisp_memberships(1, {{0}})),
               trails::core::InputError);
  EXPECT_THROW(chapman_kolmogorov_test(d, model, crisp_memberships(2, {{0}}), {.max_multiple = 0}),
               trails::core::InputError);
  EXPECT_THROW(crisp_memberships(2, {{2}}), trails::core::InputError);
}
