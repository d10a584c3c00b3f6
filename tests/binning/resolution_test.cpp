// ResolutionController (compat:resolution-ladder): the exact ladder, Python's int(1.15 b)
// arithmetic, convergence only at max resolution, and exact continuation after a state round trip.
#include "trails/binning/resolution.h"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "trails/core/error.h"

namespace trails::binning {
namespace {

TEST(Resolution, LadderFrom30) {
  std::vector<int> ladder{30};
  while (ladder.back() < 150) ladder.push_back(ResolutionController::next_bins(ladder.back(), 150));
  EXPECT_EQ(ladder, (std::vector<int>{30, 34, 39, 44, 50, 57, 65, 74, 85, 97, 111, 127, 146, 150}));
  EXPECT_EQ(ResolutionController::next_bins(150, 150), 150);
  EXPECT_EQ(ResolutionController::next_bins(1, 150), 2);  // int(1.15) == 1, so +1
  EXPECT_EQ(ResolutionController::next_bins(149, 150), 150);
  EXPECT_EQ(ResolutionController::next_bins(200, 150), 200);  // never shrinks (deliberate)
}

TEST(Resolution, MatchesPythonDoubleArithmetic) {
  // b in [1, 2000] where Python's int(1.15 * b) is one below floor(115 b / 100) (1.15 is
  // slightly less than 115/100 in binary), generated with CPython.
  const std::vector<int> below{100,  180,  200,  220,  340,  360,  380,  400,  420,  440,
                               660,  680,  700,  720,  740,  760,  780,  800,  820,  840,
                               860,  880,  1300, 1320, 1340, 1360, 1380, 1400, 1420, 1440,
                               1460, 1480, 1500, 1520, 1540, 1560, 1580, 1600, 1620, 1640,
                               1660, 1680, 1700, 1720, 1740, 1760, 1780};
  for (int b = 1; b <= 2000; ++b) {
    int expected = (115 * b) / 100;
    if (std::find(below.begin(), below.end(), b) != below.end()) --expected;
    if (expected == b) ++expected;
    ASSERT_EQ(ResolutionController::next_bins(b, 1 << 30), expected) << "b = " << b;
  }
}

// Constant occupancy: a bump every p observations until 150, then convergence after
// convergence_patience non-increasing observations at max resolution.
TEST(Resolution, ConstantOccupancyBumpsThenConverges) {
  ResolutionController rc({30, 30}, 150, 5, 3);
  std::vector<int> bumps_at;
  int converged_at = 0;
  for (int obs = 1; obs <= 80 && converged_at == 0; ++obs) {
    const auto u = rc.observe(10);
    if (u.bumped) bumps_at.push_back(obs);
    if (u.converged) converged_at = obs;
  }
  std::vector<int> expected;
  for (int k = 1; k <= 13; ++k) expected.push_back(5 * k);
  EXPECT_EQ(bumps_at, expected);
  EXPECT_EQ(rc.n_bins(), (std::vector<int>{150, 150}));
  EXPECT_TRUE(rc.at_max());
  EXPECT_EQ(converged_at, 65 + 3);
  EXPECT_TRUE(rc.converged());
  EXPECT_EQ(rc.reason(),
            "No new occupied bins for 3 iteration(s) after reaching maximum sampling resolution.");
  EXPECT_TRUE(rc.observe(10).converged);  // stays converged
}

TEST(Resolution, PlateauAtMaxDoesNotResetTheStall) {
  // convergence_patience 6 > check_patience 5: the plateau check at max changes nothing.
  ResolutionController rc({150}, 150, 5, 6);
  std::vector<bool> bumped, converged;
  for (int obs = 1; obs <= 7; ++obs) {
    const auto u = rc.observe(42);
    bumped.push_back(u.bumped);
    converged.push_back(u.converged);
  }
  EXPECT_EQ(bumped, std::vector<bool>(7, false));
  // stall: 0 (no last), 1, 2, 3, 4, 5, 6 -> converged at observation 7.
  EXPECT_EQ(converged, (std::vector<bool>{false, false, false, false, false, false, true}));
}

TEST(Resolution, GrowthResetsTheStallOnlyAtMax) {
  ResolutionController rc({150, 150}, 150, 0, 3);  // check_patience 0: never bumps
  EXPECT_FALSE(rc.observe(10).converged);          // stall 0 (first value)
  EXPECT_FALSE(rc.observe(10).converged);          // 1
  EXPECT_FALSE(rc.observe(9).converged);           // 2 (decrease counts as no growth)
  EXPECT_FALSE(rc.observe(11).converged);          // 0
  EXPECT_FALSE(rc.observe(11).converged);          // 1
  EXPECT_FALSE(rc.observe(11).converged);          // 2
  EXPECT_TRUE(rc.observe(11).converged);           // 3
  EXPECT_EQ(rc.n_bins(), (std::vector<int>{150, 150}));

  ResolutionController off({150}, 150, 5, 0);  // convergence_patience 0: off
  for (int i = 0; i < 50; ++i) EXPECT_FALSE(off.observe(7).converged);
}

TEST(Resolution, OnlyEqualValuesTriggerABump) {
  ResolutionController rc({30}, 150, 3, 0);
  for (std::int64_t o : {5, 5, 6, 6, 5}) EXPECT_FALSE(rc.observe(o).bumped);
  EXPECT_FALSE(rc.observe(5).bumped);
  EXPECT_TRUE(rc.observe(5).bumped);  // last three: 5 5 5
  EXPECT_EQ(rc.n_bins(), std::vector<int>{34});
  EXPECT_FALSE(rc.observe(5).bumped);  // history was cleared by the bump
  EXPECT_FALSE(rc.observe(5).bumped);
  EXPECT_TRUE(rc.observe(5).bumped);
}

TEST(Resolution, StateRoundTripContinuesExactly) {
  std::vector<std::int64_t> seq;
  for (int i = 0; i < 120; ++i) seq.push_back(i < 20 ? i : 20 + (i / 7) % 3);  // with plateaus
  ResolutionController a({30, 40}, 150, 4, 5);
  for (int i = 0; i < 37; ++i) a.observe(seq[static_cast<std::size_t>(i)]);
  const std::string saved = a.state().dump();
  ResolutionController b({30, 40}, 150, 4, 5);
  b.restore(nlohmann::json::parse(saved));
  EXPECT_EQ(b.state(), a.state());
  for (std::size_t i = 37; i < seq.size(); ++i) {
    const auto ua = a.observe(seq[i]);
    const auto ub = b.observe(seq[i]);
    ASSERT_EQ(ua.bumped, ub.bumped) << i;
    ASSERT_EQ(ua.converged, ub.converged) << i;
    ASSERT_EQ(a.state(), b.state()) << i;
  }
  EXPECT_TRUE(a.converged());
}

TEST(Resolution, RestoreRejectsForeignState) {
  ResolutionController rc({30, 30}, 150, 5, 0);
  nlohmann::json s = rc.state();
  s["version"] = 2;
  EXPECT_THROW(rc.restore(s), core::InputError);
  s = rc.state();
  s["n_bins"] = {30};
  EXPECT_THROW(rc.restore(s), core::InputError);
  EXPECT_THROW(rc.restore(nlohmann::json::object()), core::InputError);
  EXPECT_EQ(rc.n_bins(), (std::vector<int>{30, 30}));
}

// The Voronoi cell ladder (compat:resolution-ladder): 150 -> ... -> 5000 in 9 bumps, the grid
// untouched, convergence counted only once the cells are at their cap, state round trip.
TEST(Resolution, CellLadderFrom150) {
  std::vector<int> ladder{150};
  while (ladder.back() < 5000) {
    ladder.push_back(ResolutionController::next_cells(ladder.back(), 5000));
  }
  EXPECT_EQ(ladder, (std::vector<int>{150, 225, 337, 505, 757, 1135, 1702, 2553, 3829, 5000}));
  EXPECT_EQ(ResolutionController::next_cells(1, 10), 2);  // int(1.5) == 1, so +1
  EXPECT_EQ(ResolutionController::next_cells(10, 10), 10);

  ResolutionController rc({30, 30}, 150, 2, 2, ResolutionController::CellLadder{4, 9});
  EXPECT_EQ(rc.cells(), 4);
  std::vector<int> cells_seen;
  int converged_at = 0;
  for (int obs = 1; obs <= 20 && converged_at == 0; ++obs) {
    const auto u = rc.observe(7);
    EXPECT_FALSE(u.bumped);  // the grid never changes
    if (u.cells_bumped) cells_seen.push_back(*rc.cells());
    if (u.converged) converged_at = obs;
  }
  EXPECT_EQ(cells_seen, (std::vector<int>{6, 9}));  // bumps at observations 2 and 4
  EXPECT_EQ(converged_at, 4 + 2);
  EXPECT_EQ(rc.n_bins(), (std::vector<int>{30, 30}));

  ResolutionController a({30, 30}, 150, 1, 0, ResolutionController::CellLadder{4, 100});
  a.observe(1);
  ResolutionController b({30, 30}, 150, 1, 0, ResolutionController::CellLadder{4, 100});
  b.restore(a.state());
  EXPECT_EQ(b.cells(), 6);
  EXPECT_FALSE(ResolutionController({30, 30}, 150, 5, 0).state().contains("cells"));
  nlohmann::json s = a.state();
  s.erase("cells");
  EXPECT_THROW(b.restore(s), core::InputError);
}

}  // namespace
}  // namespace trails::binning
