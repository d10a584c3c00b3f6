// Known answers of the swarm's selection (docs/swarm.md, "Selection"): p_i ∝ exp((ŝ_i − 1)/σ)
// over min–max normalised progress, computed here by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "support/compare.h"
#include "trails/swarm/selection.h"

namespace trails::swarm {
namespace {

using test_support::kNaN;

TEST(Selection, NormalisesMinMaxOverFiniteTrials) {
  const std::vector<double> m = {2.0, 4.0, kNaN, 3.0};
  const auto s = normalised_progress(m);
  EXPECT_DOUBLE_EQ(s[0], 0.0);
  EXPECT_DOUBLE_EQ(s[1], 1.0);
  EXPECT_TRUE(std::isnan(s[2]));
  EXPECT_DOUBLE_EQ(s[3], 0.5);
}

TEST(Selection, SoftmaxKnownAnswer) {
  // ŝ = (0, 0.5, 1), σ = 0.1: weights e^-10, e^-5, 1.
  const std::vector<double> m = {-3.0, -2.0, -1.0};
  const auto p = selection_probabilities(m, 0.1);
  const double z = std::exp(-10.0) + std::exp(-5.0) + 1.0;
  ASSERT_EQ(p.size(), 3U);
  EXPECT_NEAR(p[0], std::exp(-10.0) / z, 1e-15);
  EXPECT_NEAR(p[1], std::exp(-5.0) / z, 1e-15);
  EXPECT_NEAR(p[2], 1.0 / z, 1e-15);
  // PathGennie's note: with σ = 0.1 the worst trial weighs e^-10 ≈ 4.5e-5 of the best.
  EXPECT_NEAR(p[0] / p[2], 4.54e-5, 1e-7);
}

TEST(Selection, SigmaControlsGreediness) {
  const std::vector<double> m = {0.0, 1.0};
  EXPECT_NEAR(selection_probabilities(m, 1.0)[1], 1.0 / (1.0 + std::exp(-1.0)), 1e-15);
  EXPECT_NEAR(selection_probabilities(m, 0.01)[0], std::exp(-100.0) / (1.0 + std::exp(-100.0)),
              1e-60);
  EXPECT_NEAR(selection_probabilities(m, 1e6)[1], 0.5, 1e-6);
}

TEST(Selection, AllEqualProgressIsUniform) {
  const std::vector<double> m = {1.0, 1.0 + 1e-12, 1.0, 1.0};
  const auto p = selection_probabilities(m, 0.1);
  for (double x : p) EXPECT_DOUBLE_EQ(x, 0.25);
  // A spread just above the threshold is no longer flat.
  const std::vector<double> wide = {0.0, 2e-9};
  EXPECT_GT(selection_probabilities(wide, 0.1)[1], 0.99);
}

TEST(Selection, FailedTrialsAreNeverChosen) {
  const std::vector<double> m = {kNaN, 5.0, std::numeric_limits<double>::infinity(), 1.0};
  const auto p = selection_probabilities(m, 0.1);
  EXPECT_EQ(p[0], 0.0);
  EXPECT_EQ(p[2], 0.0);
  EXPECT_NEAR(p[1] + p[3], 1.0, 1e-15);
  for (double u : {0.0, 0.3, 0.999999}) {
    const auto k = draw_index(p, u);
    EXPECT_TRUE(k == 1 || k == 3) << u;
  }
  EXPECT_TRUE(selection_probabilities(std::vector<double>{kNaN, kNaN}, 0.1).empty());
}

TEST(Selection, DrawIndexFollowsTheCumulativeSum) {
  const std::vector<double> p = {0.2, 0.0, 0.5, 0.3};
  EXPECT_EQ(draw_index(p, 0.0), 0U);
  EXPECT_EQ(draw_index(p, 0.19), 0U);
  EXPECT_EQ(draw_index(p, 0.2), 2U);  // the zero-probability trial 1 is skipped
  EXPECT_EQ(draw_index(p, 0.69), 2U);
  EXPECT_EQ(draw_index(p, 0.7), 3U);
  EXPECT_EQ(draw_index(p, 0.9999999), 3U);
}

TEST(Selection, EntropyKnownAnswers) {
  EXPECT_DOUBLE_EQ(entropy(std::vector<double>{1.0, 0.0}), 0.0);
  EXPECT_NEAR(entropy(std::vector<double>{0.25, 0.25, 0.25, 0.25}), std::log(4.0), 1e-15);
}

}  // namespace
}  // namespace trails::swarm
