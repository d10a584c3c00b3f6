// Keyed RNG streams: reproducible, independent per key, and statistically sane.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "trails/core/rng.h"

using trails::core::Rng;

TEST(Rng, SameSeedSameSequence) {
  Rng a(123), b(123);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.next_u64(), b.next_u64());
}

TEST(Rng, StreamsDifferByPurposeAndIndex) {
  auto x = Rng::stream(42, "spawn", 3).next_u64();
  EXPECT_NE(x, Rng::stream(42, "spawn", 4).next_u64());
  EXPECT_NE(x, Rng::stream(42, "init", 3).next_u64());
  EXPECT_NE(x, Rng::stream(43, "spawn", 3).next_u64());
  EXPECT_EQ(x, Rng::stream(42, "spawn", 3).next_u64());
}

// Known-answer vectors. Sources, so that the expected values are not the code's own output:
// - splitmix64, seed 1234567: the first five outputs published with the algorithm's pseudocode on
//   Rosetta Code ("Pseudo-random numbers/Splitmix64"); seed 0: the first three outputs, which are
//   also the well-known seeding of xoshiro256** from seed 0 (0xE220A8397B1DCDAF, ...).
// - xoshiro256**, state {1, 2, 3, 4}: the first ten outputs of Blackman & Vigna's reference
//   xoshiro256starstar.c, as used by the known-answer tests of several ports (e.g. Rust's
//   rand_xoshiro).
// Every value was also recomputed by an independent Python implementation written from the
// published definitions (64-bit wrap-around arithmetic); the Rng(42), stream and normal values
// below come from that implementation of Trails' seeding (splitmix64 x4), keying (splitmix64 and
// FNV-1a, see rng.cpp) and polar method. A change here silently changes every campaign's results.
TEST(Rng, Splitmix64MatchesPublishedOutputs) {
  std::uint64_t state = 1234567;
  const std::uint64_t expected[] = {6457827717110365317ULL, 3203168211198807973ULL,
                                    9817491932198370423ULL, 4593380528125082431ULL,
                                    16408922859458223821ULL};
  for (const auto want : expected) EXPECT_EQ(trails::core::splitmix64(state), want);

  state = 0;
  EXPECT_EQ(trails::core::splitmix64(state), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(trails::core::splitmix64(state), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(trails::core::splitmix64(state), 0x06C45D188009454FULL);
}

TEST(Rng, Xoshiro256StarStarMatchesReferenceOutputs) {
  auto r = Rng::from_state({1, 2, 3, 4});
  const std::uint64_t expected[] = {11520ULL,
                                    0ULL,
                                    1509978240ULL,
                                    1215971899390074240ULL,
                                    1216172134540287360ULL,
                                    607988272756665600ULL,
                                    16172922978634559625ULL,
                                    8476171486693032832ULL,
                                    10595114339597558777ULL,
                                    2904607092377533576ULL};
  for (const auto want : expected) EXPECT_EQ(r.next_u64(), want);
}

TEST(Rng, AllZeroStateIsRejected) { EXPECT_THROW(Rng::from_state({0, 0, 0, 0}), std::exception); }

TEST(Rng, SeedingIsSplitmix64IntoXoshiro) {
  // Rng(seed) fills the four state words with four splitmix64 outputs from `seed`.
  std::uint64_t x = 42;
  std::array<std::uint64_t, 4> state{};
  for (auto& word : state) word = trails::core::splitmix64(x);
  auto by_hand = Rng::from_state(state);
  Rng seeded(42);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(seeded.next_u64(), by_hand.next_u64());
}

TEST(Rng, KnownValuesArePinned) {
  Rng r(42);
  EXPECT_EQ(r.next_u64(), 1546998764402558742ULL);
  EXPECT_EQ(r.next_u64(), 6990951692964543102ULL);
  EXPECT_EQ(r.next_u64(), 12544586762248559009ULL);
  EXPECT_EQ(Rng(0).next_u64(), 11091344671253066420ULL);
  EXPECT_EQ(Rng::stream(42, "spawn", 3).next_u64(), 14568405991736172010ULL);
  EXPECT_EQ(Rng(1).normal(), 1.8843961047879769);
}

TEST(Rng, UniformAndBelowAreInRangeAndUnbiased) {
  Rng r(7);
  std::vector<int> counts(10, 0);
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    const auto k = r.below(10);
    ASSERT_LT(k, 10u);
    ++counts[k];
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);
  for (int c : counts) EXPECT_NEAR(c, n / 10, 5 * std::sqrt(n / 10.0));
}

TEST(Rng, NormalMomentsMatch) {
  Rng r(99);
  const int n = 400000;
  double s1 = 0, s2 = 0, s4 = 0;
  for (int i = 0; i < n; ++i) {
    const double z = r.normal();
    s1 += z;
    s2 += z * z;
    s4 += z * z * z * z;
  }
  EXPECT_NEAR(s1 / n, 0.0, 0.01);
  EXPECT_NEAR(s2 / n, 1.0, 0.01);
  EXPECT_NEAR(s4 / n, 3.0, 0.05);
}

TEST(Rng, ShuffleIsAPermutation) {
  Rng r(5);
  std::vector<int> v(50);
  for (int i = 0; i < 50; ++i) v[i] = i;
  trails::core::shuffle(v.begin(), v.end(), r);
  std::vector<int> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 50; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_NE(v, sorted);
}
