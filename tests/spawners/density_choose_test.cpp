// DensitySpawner::choose on a BinTable: returned frames are members of the selected bins,
// runs are reproducible, target closeness (target bin = 1), window drops, memory and state.
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "trails/core/error.h"
#include "trails/spawners/density_spawner.h"

namespace trails::spawners {
namespace {

using Ids = std::vector<std::int64_t>;

const binning::UniformGrid kGrid({10}, {0.0}, {10.0});  // bin b has centre b + 0.5

// One block per entry; frames are numbered consecutively from 0.
struct Pool {
  binning::BinTable table;
  std::map<std::int64_t, std::int64_t> bin_of_frame;
  std::int64_t next = 0;
  void add(const Ids& bins) {
    table.add_block(next, bins);
    for (auto b : bins) bin_of_frame[next++] = b;
  }
};

DensitySpawner make(bool hard, int window = 5, std::optional<std::vector<double>> target = {}) {
  return DensitySpawner(DensityOptions{hard, window, std::move(target), {}});
}

TEST(DensityChoose, HardReturnsMembersOfTheLeastPopulatedBins) {
  Pool p;
  p.add({8, 7, 8, 2, 8});
  p.add({7, 8, 5, 7, 8});  // pops: 2->1, 5->1, 7->3, 8->5
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    DensitySpawner s = make(true);
    core::Rng rng(seed);
    const Ids frames = s.choose(p.table, kGrid, 3, rng);
    ASSERT_EQ(frames.size(), 3u);
    std::set<std::int64_t> first{p.bin_of_frame.at(frames[0]), p.bin_of_frame.at(frames[1])};
    EXPECT_EQ(first, (std::set<std::int64_t>{2, 5}));
    EXPECT_EQ(p.bin_of_frame.at(frames[2]), 7);
  }
}

TEST(DensityChoose, SoftReturnsMembersOfDistinctBins) {
  Pool p;
  p.add({8, 7, 8, 2, 8, 7, 8, 5, 7, 8, 1, 1});
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    DensitySpawner s = make(false);
    core::Rng rng(seed);
    const Ids frames = s.choose(p.table, kGrid, 4, rng);
    std::set<std::int64_t> bins;
    for (auto f : frames) bins.insert(p.bin_of_frame.at(f));
    EXPECT_EQ(bins.size(), 4u);  // 5 bins with nonzero weight: drawn without replacement
    EXPECT_TRUE(s.state()["recent_bins"].empty());  // soft draws are not remembered
  }
}

TEST(DensityChoose, ConsumesSelectionThenOneBelowPerWalker) {
  Pool p;
  p.add({3, 3, 4, 4, 4, 6, 9, 9});
  for (bool hard : {true, false}) {
    DensitySpawner s = make(hard);
    const DensitySpawner before = s;
    core::Rng rng(5), twin(5);
    const Ids got = s.choose(p.table, kGrid, 6, rng);
    const std::vector<BinStat> stats{{3, 2}, {4, 3}, {6, 1}, {9, 2}};
    Ids bins;
    if (hard) {
      bins = before.hard_order(stats, 6, twin);
    } else {
      for (auto row : weighted_choice(before.soft_weights(stats), 6, twin)) {
        bins.push_back(stats[static_cast<std::size_t>(row)].bin);
      }
    }
    Ids expected;
    for (auto b : bins) {
      const auto pop = static_cast<std::uint64_t>(p.table.population(b));
      expected.push_back(p.table.member(b, static_cast<std::int64_t>(twin.below(pop))));
    }
    EXPECT_EQ(got, expected) << (hard ? "hard" : "soft");
    EXPECT_EQ(rng.next_u64(), twin.next_u64());
  }
}

TEST(DensityChoose, ReproducibleForAFixedSeed) {
  Pool p;
  p.add({0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 5, 6, 6, 7});
  for (bool hard : {true, false}) {
    DensitySpawner a = make(hard, 2), b = make(hard, 2);
    core::Rng ra(42), rb(42);
    for (int call = 0; call < 5; ++call) {
      EXPECT_EQ(a.choose(p.table, kGrid, 7, ra), b.choose(p.table, kGrid, 7, rb));
    }
    EXPECT_EQ(a.state(), b.state());
  }
}

TEST(DensityChoose, TargetClosenessOrdersHardSelection) {
  // Target 5.5 lies in empty bin 5; occupied bins 0, 4, 9 are at distances 5, 1, 4:
  // closeness 1/d = 0.2, 1, 0.25 -> normalised 0, 1, 0.0625.
  Pool p;
  p.add({0, 9, 4});
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    DensitySpawner s = make(true, 5, std::vector<double>{5.5});
    core::Rng rng(seed);
    EXPECT_EQ(s.choose(p.table, kGrid, 3, rng), (Ids{2, 1, 0}));  // bins 4, 9, 0
  }
}

TEST(DensityChoose, TargetBinItselfHasClosenessOne) {
  // Target in bin 0 (occupied); bins 1 and 3 at distances 1 and 3 -> bin 1: 1, bin 3: 0.
  // Trails-MD gave the target bin 0; here soft draws pick bins 0 and 1 equally, never bin 3.
  Pool p;
  p.add({0, 1, 3});
  DensitySpawner s = make(false, 5, std::vector<double>{0.5});
  core::Rng rng(8);
  std::map<std::int64_t, int> hits;
  const int trials = 4000;
  for (int i = 0; i < trials; ++i) ++hits[p.bin_of_frame.at(s.choose(p.table, kGrid, 1, rng)[0])];
  EXPECT_EQ(hits.count(3), 0u);
  EXPECT_NEAR(hits[0] / double(trials), 0.5, 0.05);

  DensitySpawner hard = make(true, 0, std::vector<double>{0.5});
  const Ids frames = hard.choose(p.table, kGrid, 3, rng);
  EXPECT_EQ((std::set<std::int64_t>{frames[0], frames[1]}), (std::set<std::int64_t>{0, 1}));
  EXPECT_EQ(frames[2], 2);
}

TEST(DensityChoose, TargetDimensionMismatchIsBadInput) {
  Pool p;
  p.add({0});
  DensitySpawner s = make(true, 5, std::vector<double>{0.5, 0.5});
  core::Rng rng(1);
  EXPECT_THROW(s.choose(p.table, kGrid, 1, rng), core::InputError);
}

TEST(DensityChoose, DroppedBlockFramesAreNeverCandidates) {
  Pool p;
  p.add({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});  // frames 0..9: every bin has population 1 here
  p.add({2, 2, 3, 3, 3, 4, 4, 4, 4, 9});  // frames 10..19
  p.table.drop_oldest_block();
  for (bool hard : {true, false}) {
    DensitySpawner s = make(hard);
    core::Rng rng(13);
    for (int call = 0; call < 20; ++call) {
      for (auto f : s.choose(p.table, kGrid, 30, rng)) {  // more walkers than bins: tiles
        EXPECT_GE(f, 10);
        EXPECT_LT(f, 20);
      }
    }
  }
}

TEST(DensityChoose, RecentSelectionsAreAvoided) {
  Pool p;
  p.add({1, 2, 3});
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    DensitySpawner s = make(true, 1);
    core::Rng rng(seed);
    const auto first = p.bin_of_frame.at(s.choose(p.table, kGrid, 1, rng)[0]);
    const Ids next = s.choose(p.table, kGrid, 3, rng);
    EXPECT_NE(p.bin_of_frame.at(next[0]), first);
    EXPECT_NE(p.bin_of_frame.at(next[1]), first);
    EXPECT_EQ(p.bin_of_frame.at(next[2]), first);
    EXPECT_EQ(s.state()["recent_bins"], nlohmann::json::array({Ids{1, 2, 3}}));
    s.reset_memory();
    EXPECT_TRUE(s.state()["recent_bins"].empty());
  }
  DensitySpawner none = make(true, 0);
  core::Rng rng(1);
  none.choose(p.table, kGrid, 2, rng);
  EXPECT_TRUE(none.state()["recent_bins"].empty());
}

TEST(DensityChoose, StateRoundTripContinuesExactly) {
  Pool p;
  p.add({0, 1, 1, 2, 2, 2, 3, 4, 5, 5, 6, 7, 8, 8, 9});
  DensitySpawner a = make(true, 2);
  core::Rng rng(21);
  for (int call = 0; call < 3; ++call) a.choose(p.table, kGrid, 4, rng);
  DensitySpawner b = make(true, 2);
  b.restore(nlohmann::json::parse(a.state().dump()));
  EXPECT_EQ(b.state(), a.state());
  core::Rng ra(99), rb(99);
  for (int call = 0; call < 4; ++call) {
    EXPECT_EQ(a.choose(p.table, kGrid, 4, ra), b.choose(p.table, kGrid, 4, rb));
  }
  EXPECT_EQ(a.state(), b.state());

  EXPECT_THROW(b.restore(nlohmann::json{{"version", 2}, {"recent_bins", {}}}), core::InputError);
  EXPECT_THROW(b.restore(nlohmann::json{{"version", 1}}), core::InputError);
  EXPECT_EQ(b.state(), a.state());  // a rejected state changes nothing
}

TEST(DensityChoose, EmptyPoolIsAnInternalError) {
  binning::BinTable empty;
  DensitySpawner s = make(true);
  core::Rng rng(1);
  EXPECT_THROW(s.choose(empty, kGrid, 1, rng), core::InternalError);
  EXPECT_TRUE(s.choose(empty, kGrid, 0, rng).empty());
}

}  // namespace
}  // namespace trails::spawners

// Hard explore mode visits only the lowest population tiers; that must pick exactly what the
// full rule (hard_order over every occupied bin, then one member draw per bin) picks.
TEST(DensityChoose, HardExploreTierShortcutEqualsFullRule) {
  trails::binning::UniformGrid grid({20, 20}, {0.0, 0.0}, {1.0, 1.0});
  trails::binning::BinTable table;
  trails::core::Rng fill(3);
  std::int64_t next = 0;
  for (int block = 0; block < 6; ++block) {
    std::vector<std::int64_t> bins(200);
    for (auto& b : bins) b = static_cast<std::int64_t>(fill.below(60) * fill.below(7) % 400);
    table.add_block(next, bins);
    next += 200;
  }
  for (int n : {1, 8, 40, 500}) {
    trails::spawners::DensitySpawner fast({true, 3, std::nullopt, {}});
    trails::spawners::DensitySpawner full({true, 3, std::nullopt, {}});
    for (int round = 0; round < 4; ++round) {
      trails::core::Rng r1(100 + round), r2(100 + round);
      const auto got = fast.choose(table, grid, n, r1);
      std::vector<trails::spawners::BinStat> all;
      table.for_each_occupied([&](std::int64_t b, std::int64_t p) { all.push_back({b, p, 1.0}); });
      const auto order = full.hard_order(all, n, r2);
      std::vector<std::int64_t> expected;
      for (auto b : order)
        expected.push_back(
            table.member(b, static_cast<std::int64_t>(r2.below(table.population(b)))));
      ASSERT_EQ(got, expected) << "n " << n << " round " << round;
      // Keep both spawners' recency memories in step.
      std::vector<std::int64_t> ids(order.begin(), order.end());
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      nlohmann::json state = fast.state();
      full.restore(state);
    }
  }
}
