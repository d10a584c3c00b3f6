// UniformGrid: bin_of / centre known answers, edge clipping, row-major ids, argument checks.
#include "trails/binning/uniform_grid.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "trails/core/error.h"

namespace trails::binning {
namespace {

UniformGrid grid_4x5() { return UniformGrid({4, 5}, {0.0, 0.0}, {4.0, 10.0}); }

std::int64_t bin_of(const UniformGrid& g, std::vector<double> p) { return g.bin_of(p); }

TEST(UniformGrid, BinOfAndCentreKnownAnswers) {
  const UniformGrid g = grid_4x5();
  EXPECT_EQ(g.total_bins(), 20);
  EXPECT_EQ(bin_of(g, {1.5, 3.0}), 1 * 5 + 1);  // row-major: last axis fastest
  EXPECT_EQ(bin_of(g, {0.0, 0.0}), 0);
  EXPECT_EQ(bin_of(g, {3.99, 9.99}), 19);
  EXPECT_EQ(bin_of(g, {0.0, 2.0}), 1);  // a lower edge belongs to the bin above it
  EXPECT_EQ(g.centre(6), (std::vector<double>{1.5, 3.0}));
  EXPECT_EQ(g.centre(19), (std::vector<double>{3.5, 9.0}));
}

TEST(UniformGrid, OutOfRangePointsGoToEdgeBins) {
  const UniformGrid g = grid_4x5();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(bin_of(g, {-1.0, 100.0}), 0 * 5 + 4);
  EXPECT_EQ(bin_of(g, {4.0, 10.0}), 19);  // the upper bound itself is clipped into the last bin
  EXPECT_EQ(bin_of(g, {inf, -inf}), 3 * 5 + 0);
  EXPECT_EQ(bin_of(g, {1e300, -1e300}), 15);
}

TEST(UniformGrid, NanIsBadInput) {
  const UniformGrid g = grid_4x5();
  EXPECT_THROW(bin_of(g, {std::nan(""), 1.0}), core::InputError);
}

TEST(UniformGrid, CentreRoundTripsThroughBinOf) {
  const UniformGrid g({3, 4, 5}, {-1.0, 0.0, 2.0}, {1.0, 8.0, 3.0});
  ASSERT_EQ(g.total_bins(), 60);
  for (std::int64_t b = 0; b < g.total_bins(); ++b) EXPECT_EQ(g.bin_of(g.centre(b)), b);
  EXPECT_THROW(g.centre(60), core::InternalError);
  EXPECT_THROW(g.centre(-1), core::InternalError);
}

TEST(UniformGrid, RejectsInconsistentArguments) {
  EXPECT_THROW(UniformGrid({4}, {0.0, 0.0}, {1.0, 1.0}), core::InternalError);
  EXPECT_THROW(UniformGrid({4, 4}, {0.0}, {1.0, 1.0}), core::InternalError);
  EXPECT_THROW(UniformGrid({0}, {0.0}, {1.0}), core::InternalError);
  EXPECT_THROW(UniformGrid({3}, {1.0}, {1.0}), core::InternalError);
  EXPECT_THROW(UniformGrid({3}, {2.0}, {1.0}), core::InternalError);
  EXPECT_THROW(UniformGrid({}, {}, {}), core::InternalError);
  const UniformGrid g = grid_4x5();
  EXPECT_THROW(bin_of(g, {1.0}), core::InternalError);
}

}  // namespace
}  // namespace trails::binning
