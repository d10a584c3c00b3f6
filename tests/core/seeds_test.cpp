// Per-walker seeds match Trails-MD's formula exactly (compat:walker-seed).
#include <gtest/gtest.h>

#include <set>

#include "trails/core/seeds.h"

using trails::core::walker_seed;

TEST(WalkerSeed, MatchesTrailsMdTable) {
  EXPECT_EQ(walker_seed(42, 0, 0), 42u);
  EXPECT_EQ(walker_seed(42, 0, 1), 1051u);
  EXPECT_EQ(walker_seed(42, 1, 0), 100045u);
  EXPECT_EQ(walker_seed(42, 2, 0), 200048u);
  EXPECT_EQ(walker_seed(42, 2, 1), 201057u);
  EXPECT_EQ(walker_seed(42, 2, 2), 202066u);
}

TEST(WalkerSeed, WrapsModuloMersennePrimeAndNeverZero) {
  // (2147483647 - 1009 + 1009) mod p = 0 -> 1
  EXPECT_EQ(walker_seed(2147483647ULL - 1009, 0, 1), 1u);
  // Large bases reduce exactly like Python's arbitrary-precision arithmetic.
  EXPECT_EQ(walker_seed(2147483647ULL * 3 + 5, 0, 0), 5u);
  EXPECT_EQ(walker_seed(0, 21474, 0), (21474ULL * 100003ULL) % 2147483647ULL);
}

TEST(WalkerSeed, UniqueAcrossAnIterationOfWalkers) {
  std::set<std::uint64_t> seen;
  for (std::uint64_t w = 0; w < 1000; ++w) seen.insert(walker_seed(42, 7, w));
  EXPECT_EQ(seen.size(), 1000u);
}
