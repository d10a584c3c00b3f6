// Adaptive bin edges (compat:adaptive-binning) on data whose answer is known: gradient bins are
// narrow at a double-well barrier and wide in the basins, even on flat data; MAB cuts narrow bins
// at the extremes and the bottlenecks (a hand-computed histogram), and isolates the leading frame
// of an exploration front in a bin of its own.
#include "trails/binning/adaptive_edges.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "trails/core/rng.h"

namespace trails::binning {
namespace {

// Two Gaussian basins at -1 and +1 (sd 0.25) and a few frames on the barrier between them.
std::vector<double> double_well(int n) {
  core::Rng rng(11);
  std::vector<double> x;
  for (int i = 0; i < n; ++i) x.push_back((i % 2 == 0 ? -1.0 : 1.0) + 0.25 * rng.normal());
  for (int i = 0; i < n / 100; ++i) x.push_back(-0.5 + rng.uniform());
  return x;
}

double width_at(const std::vector<double>& e, double x) {
  const auto it = std::upper_bound(e.begin(), e.end(), x);
  return *it - *(it - 1);
}

void expect_edges_valid(const std::vector<double>& e, double lo, double hi) {
  ASSERT_GE(e.size(), 2u);
  EXPECT_EQ(e.front(), lo);
  EXPECT_EQ(e.back(), hi);
  for (std::size_t i = 1; i < e.size(); ++i) EXPECT_LT(e[i - 1], e[i]) << "edge " << i;
}

TEST(GradientEdges, NarrowAtTheBarrierWideInTheBasins) {
  const auto x = double_well(20000);
  const auto e = gradient_edges(x, -3.0, 3.0, 20, 100, 3);
  expect_edges_valid(e, -3.0, 3.0);
  EXPECT_EQ(e.size(), 21u);  // nb bins: lo, nb - 1 cuts from a to b, hi
  // The barrier (x = 0) is crossed by few frames: its bin is several times narrower than the
  // bins at the basin minima, where the frames are.
  EXPECT_LT(width_at(e, 0.0), width_at(e, -1.0) / 3.0);
  EXPECT_LT(width_at(e, 0.0), width_at(e, 1.0) / 3.0);
}

TEST(GradientEdges, FlatDataGivesEvenlySpacedCuts) {
  std::vector<double> x;
  for (int i = 0; i <= 100000; ++i) x.push_back(2.0 + 4.0 * i / 100000.0);  // flat on [2, 6]
  const auto e = gradient_edges(x, 0.0, 10.0, 10, 100, 1);
  expect_edges_valid(e, 0.0, 10.0);
  ASSERT_EQ(e.size(), 11u);  // 0, then 9 cuts from 2 to 6 at steps of 0.5, then 10
  EXPECT_DOUBLE_EQ(e[1], 2.0);
  EXPECT_DOUBLE_EQ(e[9], 6.0);
  for (int i = 1; i <= 9; ++i)
    EXPECT_NEAR(e[static_cast<std::size_t>(i)], 2.0 + 0.5 * (i - 1), 5e-3);
}

TEST(GradientEdges, FallsBackToUniform) {
  const std::vector<double> same(50, 1.5);
  EXPECT_EQ(gradient_edges(same, 0.0, 4.0, 8, 100, 3), uniform_edges(0.0, 4.0, 8));  // no spread
  EXPECT_EQ(gradient_edges(double_well(100), -3.0, 3.0, 2, 100, 3), uniform_edges(-3.0, 3.0, 2));
  EXPECT_EQ(gradient_edges({}, 0.0, 1.0, 5, 100, 3), uniform_edges(0.0, 1.0, 5));
}

TEST(GradientEdges, OutOfBoxValuesAreClippedIntoTheBox) {
  const std::vector<double> x = {-50.0, 0.1, 0.2, 0.3, 0.9, 50.0};
  expect_edges_valid(gradient_edges(x, 0.0, 1.0, 6, 40, 3), 0.0, 1.0);
}

TEST(MabBottlenecks, HandComputedHistogram) {
  // Slices of width 1 on [0, 5] with populations 100, 100, 100, 1, 1. Forward, z = ln h − ln
  // ahead: ln(100/201), ln(100/101), ln(100/2), ln(1/1) (slice 4 is last: no candidate) → slice
  // 2, centre 2.5. Backward: slice 4 ln(1/302), 3 ln(1/301), 2 ln(100/200), 1 ln(100/100) = 0
  // (slice 0 is last) → slice 1, centre 1.5.
  std::vector<double> x;
  const int pops[] = {100, 100, 100, 1, 1};
  for (int s = 0; s < 5; ++s) {
    for (int k = 0; k < pops[s]; ++k) x.push_back(s + 0.5);
  }
  EXPECT_EQ(mab_bottlenecks(x, 0.0, 5.0, 5), (std::vector<double>{2.5, 1.5}));
  EXPECT_TRUE(
      mab_bottlenecks(std::vector<double>{0.5, 1.5}, 0.0, 5.0, 5).empty());  // < 3 occupied slices
}

TEST(MabEdges, NarrowBinsAtTheExtremes) {
  std::vector<double> x;
  for (int i = 0; i <= 1000; ++i) x.push_back(1.0 + 3.0 * i / 1000.0);  // occupied [1, 4]
  const auto e = mab_edges(x, 0.0, 10.0, 12, 100);
  expect_edges_valid(e, 0.0, 10.0);
  const double eps = 0.02 * 3.0;
  for (double s : {1.0, 4.0}) {  // a cut eps either side of each extreme
    EXPECT_NE(
        std::find_if(e.begin(), e.end(), [&](double v) { return std::abs(v - (s - eps)) < 1e-12; }),
        e.end())
        << s;
    EXPECT_NE(
        std::find_if(e.begin(), e.end(), [&](double v) { return std::abs(v - (s + eps)) < 1e-12; }),
        e.end())
        << s;
    // The even cuts include a and b themselves: the bins either side are at most eps wide.
    EXPECT_LE(width_at(e, s), eps + 1e-12) << s;
    EXPECT_LE(width_at(e, s - 1e-9), eps + 1e-12) << s;
  }
  EXPECT_EQ(mab_edges(x, 0.0, 10.0, 5, 100), uniform_edges(0.0, 10.0, 5));  // nb < 6
}

TEST(MabEdges, IsolatesTheLeadingFrame) {
  // An exploration front: 2000 frames decaying away from a basin at 1, one frame ahead at 6.
  core::Rng rng(3);
  std::vector<double> x;
  for (int i = 0; i < 2000; ++i) x.push_back(1.0 + std::abs(rng.normal()) * 0.8);
  x.push_back(6.0);
  for (const auto& e :
       {mab_edges(x, 0.0, 10.0, 20, 100), gradient_edges(x, 0.0, 10.0, 20, 100, 3)}) {
    expect_edges_valid(e, 0.0, 10.0);
    const auto bin = std::upper_bound(e.begin(), e.end(), 6.0) - e.begin();
    const auto pop = std::count_if(x.begin(), x.end(), [&](double v) {
      return std::upper_bound(e.begin(), e.end(), v) - e.begin() == bin;
    });
    EXPECT_EQ(pop, 1) << "the leading frame shares its bin";
  }
}

}  // namespace
}  // namespace trails::binning
