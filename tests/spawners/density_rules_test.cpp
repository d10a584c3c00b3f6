// DensitySpawner selection rules on hand-made histograms: soft weights, hard population tiers,
// fresh-before-stale memory, tiling, target ordering within a group, and the documented RNG order.
#include <algorithm>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "trails/spawners/density_spawner.h"

namespace trails::spawners {
namespace {

using Ids = std::vector<std::int64_t>;

DensitySpawner hard_spawner(int window = 5, bool target = false) {
  DensityOptions o;
  o.hard = true;
  o.recent_window = window;
  if (target) o.target = std::vector<double>{0.0};
  return DensitySpawner(o);
}

void remember(DensitySpawner& s, const std::vector<Ids>& recent) {
  s.restore(nlohmann::json{{"version", 1}, {"recent_bins", recent}});
}

std::set<std::int64_t> as_set(const Ids& v, std::size_t from, std::size_t to) {
  return {v.begin() + static_cast<std::ptrdiff_t>(from),
          v.begin() + static_cast<std::ptrdiff_t>(to)};
}

TEST(DensityRules, SoftWeightsAreClosenessOverPopulation) {
  const DensitySpawner s(DensityOptions{false, 5, std::nullopt, {}});
  EXPECT_EQ(s.soft_weights({{0, 1}, {1, 2}, {2, 4}}), (std::vector<double>{1.0, 0.5, 0.25}));
  EXPECT_EQ(s.soft_weights({{0, 1, 1.0}, {1, 2, 0.5}, {2, 4, 0.0}}),
            (std::vector<double>{1.0, 0.25, 0.0}));
}

TEST(DensityRules, HardTiersAscendingPopulation) {
  const std::vector<BinStat> bins{{10, 4}, {11, 1}, {12, 2}, {13, 1}, {14, 2}};
  std::set<Ids> first_pairs;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const DensitySpawner s = hard_spawner();
    core::Rng rng(seed);
    const Ids five = s.hard_order(bins, 5, rng);
    ASSERT_EQ(five.size(), 5u);
    EXPECT_EQ(as_set(five, 0, 2), (std::set<std::int64_t>{11, 13}));
    EXPECT_EQ(as_set(five, 2, 4), (std::set<std::int64_t>{12, 14}));
    EXPECT_EQ(five[4], 10);
    first_pairs.insert(Ids(five.begin(), five.begin() + 2));
    const Ids three = s.hard_order(bins, 3, rng);
    EXPECT_EQ(as_set(three, 0, 2), (std::set<std::int64_t>{11, 13}));
    EXPECT_TRUE(three[2] == 12 || three[2] == 14);
  }
  EXPECT_EQ(first_pairs.size(), 2u);  // ties really are shuffled
}

TEST(DensityRules, FreshBeforeStale) {
  const std::vector<BinStat> bins{{11, 1}, {12, 1}, {13, 1}, {20, 3}};
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    DensitySpawner s = hard_spawner(5);
    remember(s, {{11, 99}});
    core::Rng rng(seed);
    const Ids order = s.hard_order(bins, 4, rng);
    EXPECT_EQ(as_set(order, 0, 2), (std::set<std::int64_t>{12, 13}));
    EXPECT_EQ(order[2], 11);  // stale, but still before the next population tier
    EXPECT_EQ(order[3], 20);

    DensitySpawner two = hard_spawner(2);  // memory is the union of the remembered draws
    remember(two, {{11}, {12}});
    EXPECT_EQ(two.hard_order(bins, 1, rng), Ids{13});

    DensitySpawner one = hard_spawner(1);  // restore keeps only the newest `window` draws
    remember(one, {{11}, {12}});
    EXPECT_EQ(one.state()["recent_bins"], nlohmann::json::array({Ids{12}}));
    EXPECT_EQ(one.hard_order(bins, 3, rng)[2], 12);
  }
}

TEST(DensityRules, TilesWhenFewerBinsThanWalkers) {
  const DensitySpawner s = hard_spawner();
  core::Rng rng(3);
  EXPECT_EQ(s.hard_order({{5, 3}, {6, 1}}, 5, rng), (Ids{6, 5, 6, 5, 6}));
  EXPECT_TRUE(s.hard_order({{5, 3}}, 0, rng).empty());
}

TEST(DensityRules, TargetModeOrdersEachGroupByCloseness) {
  const std::vector<BinStat> bins{{1, 1, 0.2}, {2, 1, 1.0}, {3, 1, 0.5}, {4, 2, 0.9}, {5, 2, 0.1}};
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    core::Rng rng(seed);
    DensitySpawner s = hard_spawner(5, true);
    EXPECT_EQ(s.hard_order(bins, 5, rng), (Ids{2, 3, 1, 4, 5}));
    remember(s, {{2}});  // the closest bin is stale: it follows the fresh ones of its tier
    EXPECT_EQ(s.hard_order(bins, 5, rng), (Ids{3, 1, 2, 4, 5}));
  }
  // Explore mode ignores closeness (it is 1 there anyway).
  const DensitySpawner explore = hard_spawner();
  std::set<Ids> orders;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    core::Rng rng(seed);
    orders.insert(explore.hard_order(bins, 3, rng));
  }
  EXPECT_GT(orders.size(), 1u);
}

TEST(DensityRules, RandomNumbersAreConsumedInTheDocumentedOrder) {
  // Per tier: shuffle(fresh) then shuffle(stale); stop once enough bins are collected.
  const std::vector<BinStat> bins{{10, 4}, {11, 1}, {12, 2}, {13, 1}, {14, 2}, {15, 1}};
  DensitySpawner s = hard_spawner();
  remember(s, {{15}});
  core::Rng rng(77), twin(77);
  const Ids got = s.hard_order(bins, 4, rng);
  Ids fresh1{11, 13}, stale1{15}, fresh2{12, 14};
  core::shuffle(fresh1.begin(), fresh1.end(), twin);
  core::shuffle(stale1.begin(), stale1.end(), twin);
  core::shuffle(fresh2.begin(), fresh2.end(), twin);
  const Ids expected{fresh1[0], fresh1[1], 15, fresh2[0]};
  EXPECT_EQ(got, expected);
  EXPECT_EQ(rng.next_u64(), twin.next_u64());
}

}  // namespace
}  // namespace trails::spawners
