// Counting and connectivity: hand-counted sliding/effective matrices, a hand-made graph with a
// sink state and two components, tie-breaking, restriction, and misuse checks.
#include "trails/analysis/counting.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "trails/core/error.h"

using trails::analysis::count_matrix;
using trails::analysis::CountMode;
using trails::analysis::largest_connected_set;
using trails::analysis::restrict_to_set;
using trails::analysis::strongly_connected_components;
using trails::core::InputError;

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
  EXPECT_EQ(count_matrix(dtrajs, 2, -1, CountMode::Effective), expected2 / 2.0);
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
  const auto C = graph(7, {{1, 3}, {3, 5}, {5, 1}, {0, 4}, {4, 0}, {5, 2}, {0, 2}, {4, 1},
                           {2, 2}});
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
