// weighted_choice (Trails-MD _weighted_choice): replacement rules, zero/non-finite weights,
// draw-count contract, and a fixed-seed frequency check with a generous bound.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "trails/core/error.h"
#include "trails/spawners/density_spawner.h"

namespace trails::spawners {
namespace {

TEST(WeightedChoice, WithoutReplacementGivesDistinctRows) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    core::Rng rng(seed);
    auto rows = weighted_choice({1, 2, 3, 4, 5}, 5, rng);
    std::sort(rows.begin(), rows.end());
    EXPECT_EQ(rows, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
    core::Rng rng2(seed);
    auto some = weighted_choice({0, 2, 3, 0, 5}, 3, rng2);
    std::sort(some.begin(), some.end());
    EXPECT_EQ(some, (std::vector<std::int64_t>{1, 2, 4}));  // zero weights never drawn
  }
}

TEST(WeightedChoice, ManyRowsWithoutReplacementDrawEachPositiveRowOnce) {
  // Enough rows for several internal blocks, with runs of zero weights inside and across them.
  std::vector<double> w(1000);
  std::vector<std::int64_t> positive;
  for (std::size_t i = 0; i < w.size(); ++i) {
    w[i] = (i % 7 == 0 || (i >= 300 && i < 380)) ? 0.0 : 1.0 + static_cast<double>(i % 5);
    if (w[i] > 0.0) positive.push_back(static_cast<std::int64_t>(i));
  }
  core::Rng rng(5);
  auto rows = weighted_choice(w, static_cast<int>(positive.size()), rng);
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows, positive);
}

TEST(WeightedChoice, TooFewNonzeroWeightsFallsBackToReplacement) {
  core::Rng rng(7);
  EXPECT_EQ(weighted_choice({0, 0, 7, 0}, 3, rng), (std::vector<std::int64_t>{2, 2, 2}));
  auto many = weighted_choice({1, 1}, 6, rng);  // fewer rows than draws
  EXPECT_EQ(many.size(), 6u);
  for (auto r : many) EXPECT_TRUE(r == 0 || r == 1);
}

TEST(WeightedChoice, NonFiniteAndNegativeWeightsCarryNoProbability) {
  const double inf = std::numeric_limits<double>::infinity();
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    core::Rng rng(seed);
    EXPECT_EQ(weighted_choice({std::nan(""), inf, -3.0, 1.0}, 1, rng),
              std::vector<std::int64_t>{3});
  }
}

TEST(WeightedChoice, AllZeroIsUniform) {
  core::Rng rng(11);
  auto rows = weighted_choice({0, 0, 0, 0}, 4, rng);  // uniform, so without replacement
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows, (std::vector<std::int64_t>{0, 1, 2, 3}));
  std::vector<int> hits(4, 0);
  for (int i = 0; i < 20000; ++i)
    ++hits[static_cast<std::size_t>(weighted_choice({0, 0, 0, 0}, 1, rng)[0])];
  for (int h : hits) EXPECT_NEAR(h / 20000.0, 0.25, 0.02);
}

TEST(WeightedChoice, FrequenciesFollowTheWeights) {
  core::Rng rng(2024);
  const std::vector<double> w{1, 2, 3, 4};
  std::vector<int> hits(4, 0);
  const int trials = 40000;  // sd of each frequency <= 0.0025; bound is 4 sd
  for (int i = 0; i < trials; ++i) ++hits[static_cast<std::size_t>(weighted_choice(w, 1, rng)[0])];
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(hits[i] / double(trials), w[i] / 10.0, 0.01);

  // Without replacement, the first draw follows the weights and the second is renormalised:
  // P(second = 3 | first = 0) = 4 / 9.
  int first0 = 0, then3 = 0;
  for (int i = 0; i < trials; ++i) {
    auto r = weighted_choice(w, 2, rng);
    if (r[0] == 0) {
      ++first0;
      then3 += r[1] == 3;
    }
  }
  EXPECT_NEAR(first0 / double(trials), 0.1, 0.01);
  EXPECT_NEAR(then3 / double(first0), 4.0 / 9.0, 0.04);
}

TEST(WeightedChoice, ConsumesOneUniformPerDraw) {
  core::Rng a(99), b(99);
  weighted_choice({1, 2, 3}, 2, a);  // without replacement
  b.uniform();
  b.uniform();
  EXPECT_EQ(a.next_u64(), b.next_u64());
  weighted_choice({0, 1, 0}, 3, a);  // with replacement
  for (int i = 0; i < 3; ++i) b.uniform();
  EXPECT_EQ(a.next_u64(), b.next_u64());
}

TEST(WeightedChoice, Contract) {
  core::Rng rng(1);
  EXPECT_TRUE(weighted_choice({}, 0, rng).empty());
  EXPECT_THROW(weighted_choice({}, 1, rng), core::InternalError);
  EXPECT_THROW(weighted_choice({1.0}, -1, rng), core::InternalError);
}

}  // namespace
}  // namespace trails::spawners
