// Known answers for the exploration spawners' numerics (docs/spawning.md): the nanoflann k-d tree
// against brute force, LOF on a hand-computed line, farthest-point selection on a line, and
// Voronoi cell areas and assignment, periodic and not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "trails/analysis/farthest_points.h"
#include "trails/analysis/kd_tree.h"
#include "trails/analysis/local_outlier_factor.h"
#include "trails/analysis/voronoi_cells.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

namespace trails::analysis {
namespace {

std::vector<double> random_points(std::size_t n, int dim, std::uint64_t seed) {
  core::Rng rng(seed);
  std::vector<double> p(n * static_cast<std::size_t>(dim));
  for (double& x : p) x = rng.uniform();
  return p;
}

TEST(KdTree, MatchesBruteForceIncludingTiesByIndex) {
  for (const int dim : {1, 2, 3}) {
    auto pts = random_points(300, dim, 11 + static_cast<std::uint64_t>(dim));
    // Exact duplicates and equal distances: ties must go to the lower index.
    std::copy(pts.begin(), pts.begin() + dim, pts.begin() + 5 * dim);
    std::copy(pts.begin(), pts.begin() + dim, pts.begin() + 9 * dim);
    const KdTree tree(pts, dim);
    ASSERT_EQ(tree.size(), 300);
    for (std::size_t q = 0; q < 300; q += 7) {
      const std::span<const double> query(pts.data() + q * static_cast<std::size_t>(dim),
                                          static_cast<std::size_t>(dim));
      std::vector<KdTree::Neighbour> brute;
      for (std::int64_t i = 0; i < 300; ++i) {
        double s = 0.0;
        for (int k = 0; k < dim; ++k) {
          const double d = pts[static_cast<std::size_t>(i * dim + k)] - query[k];
          s += d * d;
        }
        brute.push_back({i, s});
      }
      std::sort(brute.begin(), brute.end(), [](const auto& a, const auto& b) {
        return a.dist2 < b.dist2 || (a.dist2 == b.dist2 && a.index < b.index);
      });
      const auto got = tree.nearest(query, 8);
      ASSERT_EQ(got.size(), 8U);
      for (std::size_t i = 0; i < 8; ++i) {
        EXPECT_EQ(got[i].index, brute[i].index) << "dim " << dim << " query " << q;
        EXPECT_DOUBLE_EQ(got[i].dist2, brute[i].dist2);
      }
    }
  }
  const std::vector<double> three = {0.0, 1.0, 2.0};
  EXPECT_EQ(KdTree(three, 1).nearest(std::vector<double>{0.5}, 10).size(), 3U);
  EXPECT_THROW(KdTree(three, 2), core::InputError);
}

// Points 0, 1, 2, 10 on a line. k = 1: every lrd is 1 except the outlier's (1/8): LOF (1,1,1,8).
// k = 2: k-distances (2, 1, 2, 9); lrd = (2/3, 1/2, 2/3, 2/17); LOF = (7/8, 4/3, 7/8, 119/24).
TEST(LocalOutlierFactor, HandComputedLine) {
  const std::vector<double> line = {0.0, 1.0, 2.0, 10.0};
  const auto k1 = local_outlier_factor(line, 1, 1);
  const std::vector<double> want1 = {1.0, 1.0, 1.0, 8.0};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(k1[i], want1[i], 1e-8) << i;
  const auto k2 = local_outlier_factor(line, 1, 2);
  const std::vector<double> want2 = {7.0 / 8.0, 4.0 / 3.0, 7.0 / 8.0, 119.0 / 24.0};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(k2[i], want2[i], 1e-8) << i;
  EXPECT_THROW(local_outlier_factor(line, 1, 4), core::InputError);
  EXPECT_THROW(local_outlier_factor(line, 1, 0), core::InputError);
}

TEST(LocalOutlierFactor, UniformSquareIsOneAndDuplicatesStayFinite) {
  // The corners of a square, k = 2: both neighbours at distance 1 everywhere, so LOF = 1.
  const std::vector<double> square = {0, 0, 1, 0, 0, 1, 1, 1};
  for (const double v : local_outlier_factor(square, 2, 2)) EXPECT_NEAR(v, 1.0, 1e-9);
  const std::vector<double> dup = {0, 0, 0, 0, 0, 0, 1, 1};
  for (const double v : local_outlier_factor(dup, 2, 2)) EXPECT_TRUE(std::isfinite(v));
}

TEST(FarthestPoints, PicksTheEndsOfALine) {
  std::vector<double> line(11);
  std::iota(line.begin(), line.end(), 0.0);
  EXPECT_EQ(farthest_points(line, 1, 5, 3), (std::vector<std::int64_t>{5, 0, 10}));
  // From 3: 10 is farthest; then 0 and 6.5's neighbours tie at 3: the lowest index wins.
  EXPECT_EQ(farthest_points(line, 1, 3, 3), (std::vector<std::int64_t>{3, 10, 0}));
  EXPECT_EQ(farthest_points(line, 1, 0, 11).size(), 11U);
  EXPECT_THROW(farthest_points(line, 1, 11, 2), core::InputError);
  EXPECT_THROW(farthest_points(line, 1, 0, 12), core::InputError);
  EXPECT_EQ(nearest_point(line, 1, std::vector<double>{7.4}), 7);
}

TEST(VoronoiCells, TwoCentresPlaneAndTorus) {
  const std::vector<double> c = {0.1, 0.5, 0.5, 0.5};
  VoronoiBox box{{0.0, 0.0}, {1.0, 1.0}, false};
  auto a = voronoi_cell_areas(c, box);
  EXPECT_NEAR(a[0], 0.3, 1e-12);  // bisector x = 0.3
  EXPECT_NEAR(a[1], 0.7, 1e-12);
  box.periodic = true;  // bisectors x = 0.3 and x = 0.8 (through the boundary)
  a = voronoi_cell_areas(c, box);
  EXPECT_NEAR(a[0], 0.5, 1e-12);
  EXPECT_NEAR(a[1], 0.5, 1e-12);
  // A point at x = 0.95 is 0.15 from centre 0 through the boundary, 0.45 directly.
  const std::vector<double> p = {0.95, 0.5};
  EXPECT_EQ(voronoi_assign(c, p, box).front(), 0);
  box.periodic = false;
  EXPECT_EQ(voronoi_assign(c, p, box).front(), 1);
}

TEST(VoronoiCells, AreasMatchAssignmentOnAFineGridAndSumToTheBox) {
  const auto centres = random_points(40, 2, 5);
  for (const bool periodic : {false, true}) {
    const VoronoiBox box{{0.0, 0.0}, {1.0, 1.0}, periodic};
    const auto areas = voronoi_cell_areas(centres, box);
    EXPECT_NEAR(std::accumulate(areas.begin(), areas.end(), 0.0), 1.0, 1e-9);
    constexpr int kGrid = 400;
    std::vector<double> grid;
    for (int i = 0; i < kGrid; ++i) {
      for (int j = 0; j < kGrid; ++j) {
        grid.push_back((i + 0.5) / kGrid);
        grid.push_back((j + 0.5) / kGrid);
      }
    }
    std::vector<double> share(40, 0.0);
    for (const int l : voronoi_assign(centres, grid, box)) share[static_cast<std::size_t>(l)] += 1;
    for (std::size_t c = 0; c < 40; ++c) {
      EXPECT_NEAR(share[c] / (kGrid * kGrid), areas[c], 3e-3) << "cell " << c << " " << periodic;
    }
  }
}

TEST(VoronoiCells, CoincidingCentresAndWrapping) {
  const std::vector<double> c = {0.5, 0.5, 0.5, 0.5};
  const auto a = voronoi_cell_areas(c, {{0.0, 0.0}, {2.0, 1.0}, false});
  EXPECT_NEAR(a[0], 2.0, 1e-12);
  EXPECT_EQ(a[1], 0.0);
  const VoronoiBox torus{{-1.0, -1.0}, {1.0, 1.0}, true};
  std::vector<double> p = {1.5, -3.25};
  wrap_into_box(torus, p);
  EXPECT_NEAR(p[0], -0.5, 1e-12);
  EXPECT_NEAR(p[1], 0.75, 1e-12);
  const std::vector<double> a2 = {-0.9, 0.0};
  const std::vector<double> b2 = {0.9, 0.0};
  EXPECT_NEAR(box_dist2(torus, a2.data(), b2.data()), 0.04, 1e-12);
  EXPECT_THROW(voronoi_cell_areas(c, {{0.0, 0.0}, {0.0, 1.0}, false}), core::InputError);
}

}  // namespace
}  // namespace trails::analysis
