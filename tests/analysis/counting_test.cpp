// Counting and connectivity: hand-counted sliding/effective matrices, statistical inefficiency
// against a closed form, effective counts against explicit indicator series, a hand-made graph with
// a sink state and two components, tie-breaking, restriction, and misuse checks.
#include "trails/analysis/counting.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "trails/analysis/msm_estimation.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

using trails::analysis::count_matrix;
using trails::analysis::CountMode;
using trails::analysis::largest_connected_set;
using trails::analysis::restrict_to_set;
using trails::analysis::statistical_inefficiency;
using trails::analysis::strongly_connected_components;
using trails::core::InputError;
using trails::core::Rng;

namespace {

// A sticky chain on n states: stay with probability `stay`, else jump to a uniform state.
std::vector<int> sticky_chain(std::uint64_t seed, int n, int frames, double stay) {
  Rng rng(seed);
  std::vector<int> d;
  int s = 0;
  for (int t = 0; t < frames; ++t) {
    d.push_back(s);
    if (rng.uniform() >= stay) s = static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
  }
  return d;
}

}  // namespace

TEST(StatisticalInefficiency, TwoStateChainMatchesTheClosedForm) {
  // Symmetric two-state chain flipping with probability p: A(k) = (1 - 2p)^k, so
  // tau = 1/2 + (1 - 2p) / (2p) and I = p / (1 - p) (damping negligible at this length).
  constexpr double p = 0.2;
  Rng rng(3);
  std::vector<double> x;
  int s = 0;
  for (int t = 0; t < 400000; ++t) {
    x.push_back(s);
    if (rng.uniform() < p) s = 1 - s;
  }
  EXPECT_NEAR(statistical_inefficiency({x}), p / (1 - p), 0.02);
  // Split into independent-looking pieces: same process, same answer.
  std::vector<std::vector<double>> pieces;
  for (std::size_t b = 0; b < x.size(); b += 1000)
    pieces.emplace_back(x.begin() + b, x.begin() + b + 1000);
  EXPECT_NEAR(statistical_inefficiency(pieces), p / (1 - p), 0.02);
  EXPECT_EQ(statistical_inefficiency({{1.0, 1.0, 1.0}}), 1.0);  // constant: no information lost
  std::vector<double> white;
  for (int t = 0; t < 100000; ++t) white.push_back(rng.normal());
  EXPECT_GT(statistical_inefficiency({white}), 0.95);
}

TEST(EffectiveCountAccumulator, EqualsBatchEffectiveCountsBitwiseAfterEveryTrajectory) {
  // Campaign-like segments: many short trajectories of varying length (some at or below the
  // lag), added one at a time; after each, the accumulated counts are the batch counts.
  constexpr int n = 6;
  for (const int lag : {1, 3}) {
    trails::analysis::EffectiveCountAccumulator acc(n, lag);
    std::vector<std::vector<int>> dtrajs;
    Rng lengths(99);
    for (int s = 0; s < 40; ++s) {
      dtrajs.push_back(sticky_chain(100 + static_cast<std::uint64_t>(s), n,
                                    1 + static_cast<int>(lengths.below(60)), 0.85));
      acc.add(dtrajs.back());
      ASSERT_EQ(acc.sliding(), count_matrix(dtrajs, lag, n)) << "lag " << lag << " after " << s;
      ASSERT_EQ(acc.effective(), count_matrix(dtrajs, lag, n, CountMode::Effective))
          << "lag " << lag << " after " << s;
    }
    EXPECT_LT(acc.effective().sum(), acc.sliding().sum());  // correlated: fewer effective counts
  }
  trails::analysis::EffectiveCountAccumulator acc(3, 1);
  EXPECT_THROW(acc.add(std::vector<int>{0, 3}), InputError);
  EXPECT_THROW(trails::analysis::EffectiveCountAccumulator(3, 0), InputError);
}

TEST(CountMatrix, EffectiveCountsAreRowAveragedIndicatorInefficiencies) {
  constexpr int n = 4, lag = 3;
  const std::vector<std::vector<int>> dtrajs = {
      sticky_chain(1, n, 300, 0.9), sticky_chain(2, n, 200, 0.9), sticky_chain(3, n, 5, 0.9)};
  const Eigen::MatrixXd C = count_matrix(dtrajs, lag, n);
  const Eigen::MatrixXd E = count_matrix(dtrajs, lag, n, CountMode::Effective);
  // Reference: the statistical inefficiency of each pair's explicit indicator series.
  Eigen::MatrixXd I = Eigen::MatrixXd::Ones(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (C(i, j) == 0.0) continue;
      std::vector<std::vector<double>> series;
      for (const auto& d : dtrajs) {
        std::vector<double> a;
        for (std::size_t t = 0; t + lag < d.size(); ++t) a.push_back(d[t] == i && d[t + lag] == j);
        series.push_back(a);
      }
      I(i, j) = statistical_inefficiency(series);
    }
  for (int i = 0; i < n; ++i) {
    const double average = C.row(i).dot(I.row(i)) / C.row(i).sum();
    for (int j = 0; j < n; ++j)
      EXPECT_NEAR(E(i, j), C(i, j) * average, 1e-10 * C(i, j)) << i << "," << j;
  }
  // Correlated windows: far fewer effective than sliding counts; row proportions unchanged.
  EXPECT_LT(E.sum(), 0.5 * C.sum());
  EXPECT_LT((trails::analysis::nonreversible_mle(E) - trails::analysis::nonreversible_mle(C))
                .cwiseAbs()
                .maxCoeff(),
            1e-14);
}

TEST(CountMatrix, SlidingCountsOnHandMadeTrajectories) {
  const std::vector<std::vector<int>> dtrajs = {{0, 0, 1, 2, 1}, {2, 2}};
  // lag 1 pairs: (0,0) (0,1) (1,2) (2,1) | (2,2)
  Eigen::MatrixXd expected1(3, 3);
  expected1 << 1, 1, 0, 0, 0, 1, 0, 1, 1;
  EXPECT_EQ(count_matrix(dtrajs, 1, -1), expected1);
  // lag 2 pairs: (0,1) (0,2) (1,1); the second trajectory is too short.
  Eigen::MatrixXd expected2(3, 3);
  expected2 << 0, 1, 1, 0, 1, 0, 0, 0, 0;
  EXPECT_EQ(count_matrix(dtrajs, 2, -1, CountMode::Sliding), expected2);
  // Each lag-2 pair occurs once and never again one frame later: the indicators' truncated
  // autocorrelation is empty, every statistical inefficiency is 1, effective = sliding.
  EXPECT_EQ(count_matrix(dtrajs, 2, -1, CountMode::Effective), expected2);
  // Explicit n_states pads with empty states.
  const auto padded = count_matrix(dtrajs, 1, 5);
  ASSERT_EQ(padded.rows(), 5);
  EXPECT_EQ(padded.topLeftCorner(3, 3), expected1);
  EXPECT_EQ(padded.sum(), 5.0);
  // Lag longer than every trajectory: all zeros.
  EXPECT_EQ(count_matrix(dtrajs, 10, -1).sum(), 0.0);
  EXPECT_EQ(count_matrix({}, 1, -1).rows(), 0);
}

TEST(CountMatrix, RejectsBadInput) {
  EXPECT_THROW(count_matrix({{0, 1}}, 0, -1), InputError);
  EXPECT_THROW(count_matrix({{0, -1}}, 1, -1), InputError);
  EXPECT_THROW(count_matrix({{0, 1}}, 1, -2), InputError);
  try {
    count_matrix({{0, 3}}, 1, 2);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("n_states = 2, got 3"), std::string::npos) << e.what();
  }
}

namespace {

Eigen::MatrixXd graph(int n, const std::vector<std::pair<int, int>>& edges) {
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(n, n);
  for (auto [i, j] : edges) C(i, j) = 1.0;
  return C;
}

}  // namespace

TEST(LargestConnectedSet, SinkStateAndTwoComponents) {
  // {1, 3, 5} is a cycle, {0, 4} a two-cycle, 2 is a sink reachable from both, 6 is isolated,
  // and a one-way edge 4 -> 1 does not merge the components.
  const auto C = graph(7, {{1, 3}, {3, 5}, {5, 1}, {0, 4}, {4, 0}, {5, 2}, {0, 2}, {4, 1}, {2, 2}});
  EXPECT_EQ(largest_connected_set(C), (std::vector<int>{1, 3, 5}));
  auto comps = strongly_connected_components(C);
  std::sort(comps.begin(), comps.end());
  EXPECT_EQ(comps, (std::vector<std::vector<int>>{{0, 4}, {1, 3, 5}, {2}, {6}}));
}

TEST(LargestConnectedSet, TiesGoToTheSmallestStateId) {
  const auto C = graph(5, {{3, 4}, {4, 3}, {1, 2}, {2, 1}, {0, 1}});
  EXPECT_EQ(largest_connected_set(C), (std::vector<int>{1, 2}));
  EXPECT_EQ(largest_connected_set(Eigen::MatrixXd::Zero(3, 3)), (std::vector<int>{0}));
  EXPECT_TRUE(largest_connected_set(Eigen::MatrixXd(0, 0)).empty());
}

TEST(LargestConnectedSet, LongChainDoesNotRecurse) {
  // A 3000-state chain: deep enough to matter for a recursive search, cheap to count.
  std::vector<std::vector<int>> traj(1);
  for (int i = 0; i < 3000; ++i) traj[0].push_back(i);
  for (int i = 2999; i >= 0; --i) traj[0].push_back(i);
  const auto C = count_matrix(traj, 1, -1);
  EXPECT_EQ(largest_connected_set(C).size(), 3000u);
}

TEST(RestrictToSet, PicksRowsAndColumns) {
  Eigen::MatrixXd C(3, 3);
  C << 1, 2, 3, 4, 5, 6, 7, 8, 9;
  const std::vector<int> set = {0, 2};
  Eigen::MatrixXd expected(2, 2);
  expected << 1, 3, 7, 9;
  EXPECT_EQ(restrict_to_set(C, set), expected);
  const std::vector<int> bad = {0, 3};
  EXPECT_THROW(restrict_to_set(C, bad), InputError);
  EXPECT_THROW(largest_connected_set(Eigen::MatrixXd::Zero(2, 3)), InputError);
}
