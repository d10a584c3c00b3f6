// BinTable: known answers, incremental state equal to a brute-force recount after random
// add/drop sequences, and misuse checks.
#include "trails/binning/bin_table.h"

#include <algorithm>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "trails/core/error.h"
#include "trails/core/rng.h"

namespace trails::binning {
namespace {

using Pops = std::vector<std::pair<std::int64_t, std::int64_t>>;

Pops occupied_of(const BinTable& t) {
  Pops out;
  t.for_each_occupied([&](std::int64_t b, std::int64_t p) { out.emplace_back(b, p); });
  return out;
}

TEST(BinTable, KnownAnswer) {
  BinTable t;
  const std::vector<std::int64_t> a{3, 1, 3}, b{1, 2};
  t.add_block(0, a);
  t.add_block(3, b);
  EXPECT_EQ(t.n_blocks(), 2u);
  EXPECT_EQ(t.frames(), 5);
  EXPECT_EQ(t.occupied(), 3);
  EXPECT_EQ(occupied_of(t), (Pops{{1, 2}, {2, 1}, {3, 2}}));
  EXPECT_EQ(t.member(1, 0), 1);
  EXPECT_EQ(t.member(1, 1), 3);
  EXPECT_EQ(t.member(3, 1), 2);
  EXPECT_EQ(t.population(7), 0);

  t.drop_oldest_block();
  EXPECT_EQ(t.n_blocks(), 1u);
  EXPECT_EQ(t.frames(), 2);
  EXPECT_EQ(occupied_of(t), (Pops{{1, 1}, {2, 1}}));
  EXPECT_EQ(t.member(1, 0), 3);
  EXPECT_EQ(t.population(3), 0);

  t.clear();
  EXPECT_EQ(t.occupied(), 0);
  EXPECT_EQ(t.frames(), 0);
  EXPECT_EQ(t.n_blocks(), 0u);
}

TEST(BinTable, EmptyBlocksCountAsIterations) {
  BinTable t;
  t.add_block(0, {});
  const std::vector<std::int64_t> b{5};
  t.add_block(0, b);
  EXPECT_EQ(t.n_blocks(), 2u);
  t.drop_oldest_block();
  EXPECT_EQ(occupied_of(t), (Pops{{5, 1}}));
}

TEST(BinTable, IncrementalEqualsBruteForce) {
  core::Rng rng(20240611);
  BinTable t;
  std::deque<std::pair<std::int64_t, std::vector<std::int64_t>>> kept;  // the oracle's blocks
  std::int64_t next_frame = 0;
  for (int step = 0; step < 400; ++step) {
    const bool drop = !kept.empty() && rng.below(3) == 0;
    if (drop) {
      t.drop_oldest_block();
      kept.pop_front();
    } else {
      // Long runs in one bin exercise the cache; a small id range exercises compaction.
      std::vector<std::int64_t> bins(rng.below(60));
      std::int64_t b = static_cast<std::int64_t>(rng.below(25));
      for (auto& x : bins) {
        if (rng.below(4) == 0) b = static_cast<std::int64_t>(rng.below(25));
        x = b;
      }
      const std::int64_t first = next_frame + static_cast<std::int64_t>(rng.below(3));
      t.add_block(first, bins);
      kept.emplace_back(first, bins);
      next_frame = first + static_cast<std::int64_t>(bins.size());
    }
    std::map<std::int64_t, std::vector<std::int64_t>> members;
    std::int64_t frames = 0;
    for (const auto& [first, bins] : kept) {
      for (std::size_t i = 0; i < bins.size(); ++i) {
        members[bins[i]].push_back(first + static_cast<std::int64_t>(i));
      }
      frames += static_cast<std::int64_t>(bins.size());
    }
    Pops expected;
    for (const auto& [b, m] : members)
      expected.emplace_back(b, static_cast<std::int64_t>(m.size()));
    ASSERT_EQ(occupied_of(t), expected) << "step " << step;
    ASSERT_EQ(t.frames(), frames);
    ASSERT_EQ(t.n_blocks(), kept.size());
    ASSERT_EQ(t.occupied(), static_cast<std::int64_t>(members.size()));
    for (const auto& [b, m] : members) {
      ASSERT_EQ(t.population(b), static_cast<std::int64_t>(m.size()));
      for (std::size_t k = 0; k < m.size(); ++k) {
        ASSERT_EQ(t.member(b, static_cast<std::int64_t>(k)), m[k]) << "bin " << b << " k " << k;
      }
    }
  }
}

TEST(BinTable, MisuseIsAnInternalError) {
  BinTable t;
  EXPECT_THROW(t.drop_oldest_block(), core::InternalError);
  const std::vector<std::int64_t> a{1, 2, 3};
  t.add_block(10, a);
  EXPECT_THROW(t.add_block(11, a), core::InternalError);  // overlaps the previous block
  const std::vector<std::int64_t> negative{-1};
  EXPECT_THROW(t.add_block(20, negative), core::InternalError);
  EXPECT_EQ(t.frames(), 3);  // failed calls left the table unchanged
  EXPECT_THROW(t.member(1, 1), core::InternalError);
  EXPECT_THROW(t.member(4, 0), core::InternalError);
}

}  // namespace
}  // namespace trails::binning

// The population-tier index agrees with a full scan after random adds and drops.
TEST(BinTable, LowestTiersMatchAFullScan) {
  trails::binning::BinTable table;
  trails::core::Rng rng(11);
  std::int64_t next = 0;
  for (int round = 0; round < 300; ++round) {
    if (table.n_blocks() > 4 && rng.below(3) == 0) {
      table.drop_oldest_block();
    } else {
      std::vector<std::int64_t> bins(rng.below(20) + 1);
      for (auto& b : bins) b = static_cast<std::int64_t>(rng.below(12));
      table.add_block(next, bins);
      next += static_cast<std::int64_t>(bins.size());
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> all;  // (pop, bin)
    table.for_each_occupied([&](std::int64_t b, std::int64_t p) { all.emplace_back(p, b); });
    std::sort(all.begin(), all.end());
    for (std::int64_t want : {1, 3, 7, 100}) {
      std::vector<std::pair<std::int64_t, std::int64_t>> got;
      table.for_each_in_lowest_tiers(
          want, [&](std::int64_t b, std::int64_t p) { got.emplace_back(p, b); });
      // Expected: whole tiers from the bottom until `want` bins are reached.
      std::vector<std::pair<std::int64_t, std::int64_t>> expected;
      for (std::size_t i = 0; i < all.size(); ++i) {
        if (static_cast<std::int64_t>(expected.size()) >= want &&
            all[i].first != expected.back().first)
          break;
        expected.push_back(all[i]);
      }
      ASSERT_EQ(got, expected) << "round " << round << " want " << want;
    }
  }
}
