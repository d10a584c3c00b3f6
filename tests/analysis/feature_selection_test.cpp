// Greedy VAMP-2 feature selection and feature-type ranking on simulated slow/fast/noise features.
#include "trails/analysis/feature_selection.h"

#include <gtest/gtest.h>

#include <cmath>

#include "spaces_test_util.h"
#include "trails/core/error.h"

namespace trails::analysis {
namespace {

// Independent AR(1) columns with the given autocorrelations (0 = white noise).
RunningMoments moments_of(const Eigen::VectorXd& a, int lag, std::uint64_t seed,
                          int n_segments = 10, std::int64_t frames = 20000) {
  const Eigen::MatrixXd A = a.asDiagonal();
  RunningMoments acc(static_cast<int>(a.size()), lag);
  for (int s = 0; s < n_segments; ++s)
    acc.add_segment(testing::simulate_ar1(A, frames, seed + static_cast<std::uint64_t>(s)));
  return acc;
}

TEST(FeatureSelection, GreedyPicksTheSlowFeatureOnly) {
  // Columns: fast, noise, fast, slow, noise, fast. At lag 5 only column 3 has signal (0.99^10).
  Eigen::VectorXd a(6);
  a << 0.1, 0.0, 0.2, 0.99, 0.0, 0.1;
  const RunningMoments acc = moments_of(a, 5, 40);
  const FeatureSelection sel = select_features(feature_selection_covariances(acc), {});
  ASSERT_EQ(sel.columns, std::vector<int>{3});
  EXPECT_EQ(sel.groups_added, std::vector<int>{3});
  EXPECT_NEAR(sel.score, std::pow(0.99, 10), 0.05);
  EXPECT_NEAR(sel.gains.at(0), sel.score, 1e-15);
}

TEST(FeatureSelection, OrderBudgetAndGroups) {
  Eigen::VectorXd a(4);
  a << 0.0, 0.9, 0.99, 0.5;
  const Covariances cov = feature_selection_covariances(moments_of(a, 1, 60));
  FeatureSelectionOptions o;
  const FeatureSelection all = select_features(cov, o);
  ASSERT_GE(all.groups_added.size(), 3u);
  EXPECT_EQ(all.groups_added[0], 2);  // slowest first
  EXPECT_EQ(all.groups_added[1], 1);
  EXPECT_EQ(all.groups_added[2], 3);
  o.max_groups = 1;
  EXPECT_EQ(select_features(cov, o).columns, std::vector<int>{2});
  // Groups: {0, 3} (noise + medium) against {1} (0.9): the single 0.9 column wins first.
  o.max_groups = -1;
  o.groups = {{0, 3}, {1}};
  const FeatureSelection g = select_features(cov, o);
  EXPECT_EQ(g.groups_added.front(), 1);
  EXPECT_EQ(g.columns, (std::vector<int>{0, 1, 3}));
  o.groups = {{0, 7}};
  EXPECT_THROW(select_features(cov, o), core::InputError);
  o.groups = {{}};
  EXPECT_THROW(select_features(cov, o), core::InputError);
}

TEST(FeatureSelection, NothingAboveMinGainKeepsAllColumns) {
  Eigen::VectorXd a(3);
  a << 0.0, 0.0, 0.0;
  const Covariances cov = feature_selection_covariances(moments_of(a, 3, 80));
  const FeatureSelection sel = select_features(cov, {});
  EXPECT_TRUE(sel.groups_added.empty());
  EXPECT_EQ(sel.columns, (std::vector<int>{0, 1, 2}));
  EXPECT_LT(sel.score, 1e-3);
  FeatureSelectionOptions o;
  o.method = FeatureSelectionMethod::All;
  EXPECT_EQ(select_features(cov, o).columns, (std::vector<int>{0, 1, 2}));
}

TEST(FeatureSelection, RanksFeatureTypesAndSkipsFailures) {
  Eigen::VectorXd slow(2), noise(2);
  slow << 0.95, 0.0;
  noise << 0.0, 0.0;
  const RunningMoments s = moments_of(slow, 2, 100, 4, 5000);
  const RunningMoments n = moments_of(noise, 2, 200, 4, 5000);
  RunningMoments short_segments(2, 2);
  short_segments.add_segment(testing::random_frames(2, 2, 1));  // no pair at lag 2
  const auto ranked = rank_feature_types(
      {{"noise", &n}, {"short", &short_segments}, {"slow", &s}, {"missing", nullptr}});
  ASSERT_EQ(ranked.size(), 4u);
  EXPECT_EQ(ranked[0].name, "slow");
  EXPECT_NEAR(ranked[0].score, std::pow(0.95, 4), 0.05);
  EXPECT_EQ(ranked[1].name, "noise");
  EXPECT_TRUE(ranked[1].error.empty());
  EXPECT_EQ(ranked[2].name, "short");  // failures keep their order, at -inf
  EXPECT_TRUE(std::isinf(ranked[2].score));
  EXPECT_NE(ranked[2].error.find("lag"), std::string::npos);
  EXPECT_EQ(ranked[3].name, "missing");
}

}  // namespace
}  // namespace trails::analysis
