// Numerics of `trails analyze`: the free-energy histogram (numpy's binning rules), the
// pi-weighting of frames through their nearest microstate centre, and the series tail
// (compat:steady-state-tail). The end-to-end report is tested in tests/scripts/analyze.sh against
// numpy.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "trails/analysis/free_energy.h"
#include "trails/analysis/series_tail.h"
#include "trails/core/error.h"
#include "trails/report/analyze/analyze.h"

using namespace trails;
using analysis::series_tail;

TEST(AnalyzeFes, TwoByTwoHandCounted) {
  // Edges [0, 0.5, 1] per axis; x = 0.5 falls in the upper bin (searchsorted right), x = 1 (the
  // maximum) in the last bin.
  const std::vector<double> pts = {0, 0, 1, 1, 1, 1, 0.5, 0.25};
  const double kT = 2.0;
  const auto fes = analysis::free_energy_surface(pts, 2, 2, {}, 2, kT);
  ASSERT_EQ(fes.edges.size(), 2u);
  EXPECT_EQ(fes.edges[0], (std::vector<double>{0.0, 0.5, 1.0}));
  ASSERT_EQ(fes.free_energy.size(), 4u);
  EXPECT_NEAR(fes.free_energy[0], kT * std::log(2.0), 1e-14);  // (0,0): 1 frame
  EXPECT_TRUE(std::isnan(fes.free_energy[1]));                 // (0,1): empty
  EXPECT_NEAR(fes.free_energy[2], kT * std::log(2.0), 1e-14);  // (1,0): 1 frame
  EXPECT_EQ(fes.free_energy[3], 0.0);                          // (1,1): 2 frames, the minimum
  EXPECT_EQ(fes.total_weight, 4.0);
}

TEST(AnalyzeFes, WeightsAndOneDimension) {
  // 1-D on the first column of 2-D points; weights 3:1 between the two bins.
  const std::vector<double> pts = {0.0, 9.0, 1.0, 9.0, 1.0, -9.0};
  const std::vector<double> w = {0.75, 0.125, 0.125};
  const auto fes = analysis::free_energy_surface(pts, 2, 1, w, 2, 1.0);
  ASSERT_EQ(fes.free_energy.size(), 2u);
  EXPECT_EQ(fes.free_energy[0], 0.0);
  EXPECT_NEAR(fes.free_energy[1], std::log(3.0), 1e-14);
}

TEST(AnalyzeFes, ConstantCoordinateGetsUnitRange) {
  const std::vector<double> pts = {2.0, 2.0, 2.0};
  const auto fes = analysis::free_energy_surface(pts, 1, 1, {}, 4, 1.0);
  EXPECT_EQ(fes.edges[0].front(), 1.5);  // numpy: min - 0.5 .. max + 0.5
  EXPECT_EQ(fes.edges[0].back(), 2.5);
  EXPECT_EQ(fes.free_energy[2], 0.0);  // 2.0 = edge 2 → bin 2
  EXPECT_TRUE(std::isnan(fes.free_energy[0]));
}

TEST(AnalyzeFes, RejectsBadInput) {
  const std::vector<double> pts = {0.0, 1.0};
  EXPECT_THROW(analysis::free_energy_surface(pts, 1, 2, {}, 10, 1.0),
               core::InputError);  // 2-D of 1-D points
  EXPECT_THROW(analysis::free_energy_surface(pts, 1, 1, std::vector<double>{1.0}, 10, 1.0),
               core::InputError);
  EXPECT_THROW(analysis::free_energy_surface(pts, 1, 1, std::vector<double>{0.0, 0.0}, 10, 1.0),
               core::InputError);
  EXPECT_THROW(analysis::free_energy_surface({}, 1, 1, {}, 10, 1.0), core::InputError);
  EXPECT_THROW(analysis::free_energy_surface(pts, 1, 1, {}, 10, 0.0), core::InputError);
}

TEST(AnalyzeWeights, NearestCentreCarriesPi) {
  // Centres 0, 10, 20 (state 2 inactive). Frames: three near 0, one near 10, one at 5 (a tie
  // between centres 0 and 10: the lowest index wins), one near 20.
  const std::vector<double> pts = {0.1, -0.2, 0.0, 9.0, 5.0, 19.0};
  const std::vector<double> centres = {0.0, 10.0, 20.0};
  const std::vector<int> active = {0, 1};
  const std::vector<double> pi = {0.25, 0.75};
  const auto w = analysis::microstate_frame_weights(pts, 1, centres, active, pi);
  ASSERT_EQ(w.size(), 6u);
  for (int i : {0, 1, 2, 4}) EXPECT_DOUBLE_EQ(w[static_cast<std::size_t>(i)], 0.25 / 4);
  EXPECT_DOUBLE_EQ(w[3], 0.75);
  EXPECT_EQ(w[5], 0.0);
  EXPECT_THROW(analysis::microstate_frame_weights(pts, 1, centres, std::vector<int>{0, 3}, pi),
               core::InputError);
  EXPECT_THROW(
      analysis::microstate_frame_weights(pts, 1, centres, active, std::vector<double>{1.0}),
      core::InputError);
}

TEST(AnalyzeTail, TrailsMdHillRelationExample) {
  // Trails-MD's MFPT test series [0, 0, .01, .02] + [.1]*4 with discard 0.5: tail mean 0.1.
  const std::vector<double> v = {0, 0, 0.01, 0.02, 0.1, 0.1, 0.1, 0.1};
  const auto t = series_tail(v, 0.5);
  EXPECT_EQ(t.n_skip, 4u);
  EXPECT_EQ(t.n_tail, 4u);
  EXPECT_DOUBLE_EQ(t.mean, 0.1);
  EXPECT_DOUBLE_EQ(t.plateau, 1.0);
  const auto all = series_tail(v, 0.0);
  EXPECT_EQ(all.n_skip, 0u);
  EXPECT_DOUBLE_EQ(all.mean, 0.43 / 8);
  EXPECT_NEAR(all.plateau, 0.1 / 0.0075, 1e-12);  // halves [0, 0, .01, .02] and [.1]*4
}

TEST(AnalyzeTail, EdgeCases) {
  const std::vector<double> one = {3.0};
  EXPECT_TRUE(std::isnan(series_tail(one, 0.0).plateau));
  EXPECT_EQ(series_tail(one, 0.0).mean, 3.0);
  const std::vector<double> gaps = {NAN, 2.0, INFINITY, 4.0};
  const auto t = series_tail(gaps, 0.0);
  EXPECT_EQ(t.mean, 3.0);     // non-finite values ignored
  EXPECT_EQ(t.plateau, 2.0);  // (4) / (2)
  EXPECT_THROW(series_tail(one, 1.0), core::UsageError);
  EXPECT_THROW(series_tail(one, -0.1), core::UsageError);
}
