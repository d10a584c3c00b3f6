// Known answers for the Voronoi, LOF and FPS spawners (docs/spawning.md) on hand-made pools, with
// a history whose first iteration lies outside the pool: every returned index is global, so a
// pool-local index (Trails-MD's fix:history-window-every-spawner bug) points at the wrong frames
// and fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "trails/binning/bin_table.h"
#include "trails/binning/uniform_grid.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"
#include "trails/spawners/fps_spawner.h"
#include "trails/spawners/lof_spawner.h"
#include "trails/spawners/voronoi_spawner.h"

namespace trails::spawners {
namespace {

using Span = features::FrameHistory::WalkerSpan;

// Iteration 0: `before` (outside the pool when pool_first = its frame count); iteration 1: `pool`.
features::FrameHistory two_iterations(int dim, const std::vector<double>& before,
                                      const std::vector<double>& pool) {
  features::FrameHistory h(dim);
  const std::vector<Span> w0 = {{0, static_cast<std::int64_t>(before.size()) / dim}};
  h.append(0, w0, before);
  const std::vector<Span> w1 = {{0, static_cast<std::int64_t>(pool.size()) / dim}};
  h.append(1, w1, pool);
  return h;
}

std::vector<double> line(int n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

TEST(FpsSpawner, TargetSeedAndEndsOfTheLineAsGlobalIndices) {
  // Pool: 0..10 at global 4..14; the excluded iteration 0 holds four frames near the target.
  const auto h = two_iterations(1, {0.2, 100, 101, 102}, line(11));
  FpsSpawner fps(FpsOptions{std::vector<double>{5.2}});
  core::Rng rng(1);
  EXPECT_EQ(fps.choose(h, 4, 3, rng), (std::vector<std::int64_t>{9, 4, 14}));
  // With the whole history as the pool the seed is still 5 (global 9), but the farthest frame
  // is now 102 (global 3).
  EXPECT_EQ(fps.choose(h, 0, 2, rng), (std::vector<std::int64_t>{9, 3}));
}

TEST(FpsSpawner, ExploreDrawsTheSeedFromTheRngAndTilesASmallPool) {
  const auto h = two_iterations(1, {50}, line(11));
  FpsSpawner fps(FpsOptions{});
  core::Rng a = core::Rng::stream(3, "spawn", 2);
  core::Rng b = core::Rng::stream(3, "spawn", 2);
  const auto first = fps.choose(h, 1, 4, a);
  EXPECT_EQ(first, fps.choose(h, 1, 4, b));
  for (const auto g : first) EXPECT_GE(g, 1);
  // The second pick of max-min from any seed on a line is an end of it.
  EXPECT_TRUE(first[1] == 1 || first[1] == 11);
  core::Rng c(9);
  EXPECT_EQ(fps.choose(h, 9, 5, c), (std::vector<std::int64_t>{9, 10, 11, 9, 10}));
  EXPECT_EQ(fps.state(), nullptr);
}

TEST(LofSpawner, OutlierWeightsAndWindowedIndices) {
  // Pool {0, 1, 2, 10} at global 2..5, lof_neighbors 1: LOF (1,1,1,8) -> weights (0,0,0,7).
  const auto h = two_iterations(1, {50, 60}, {0, 1, 2, 10});
  LofSpawner lof(LofOptions{1, std::nullopt});
  const auto w = lof.frame_weights(h, 2);
  ASSERT_EQ(w.size(), 4U);
  EXPECT_NEAR(w[0], 0.0, 1e-8);
  EXPECT_NEAR(w[3], 7.0, 1e-8);
  core::Rng rng(4);
  EXPECT_EQ(lof.choose(h, 2, 1, rng), (std::vector<std::int64_t>{5}));
  // k larger than the pool allows is cut to N - 1; a one-frame pool is returned W times.
  LofSpawner wide(LofOptions{20, std::nullopt});
  EXPECT_EQ(wide.frame_weights(h, 2).size(), 4U);
  EXPECT_EQ(wide.choose(h, 5, 3, rng), (std::vector<std::int64_t>{5, 5, 5}));
}

TEST(LofSpawner, TargetMultipliesByNormalisedInverseDistance) {
  // k = 2: LOF (7/8, 4/3, 7/8, 119/24) - 7/8 = (0, 11/24, 0, 98/24); target 0 -> p ∝ 1/d.
  const auto h = two_iterations(1, {50}, {0, 1, 2, 10});
  LofSpawner lof(LofOptions{2, std::vector<double>{0.0}});
  const auto w = lof.frame_weights(h, 1);
  EXPECT_NEAR(w[1] / w[3], (11.0 / 24.0) / (98.0 / 24.0 / 10.0), 1e-6);
  EXPECT_NEAR(w[0], 0.0, 1e-12);
  LofSpawner bad(LofOptions{2, std::vector<double>{0.0, 1.0}});
  EXPECT_THROW(bad.frame_weights(h, 1), core::InputError);
}

binning::UniformGrid unit_grid() { return binning::UniformGrid({10, 10}, {0.0, 0.0}, {1.0, 1.0}); }

TEST(VoronoiSpawner, CellWeightsAreAreaOverPopulation) {
  VoronoiSpawner v(VoronoiOptions{2, false, std::nullopt});
  const analysis::VoronoiBox box{{0.0, 0.0}, {1.0, 1.0}, false};
  core::Rng rng(1);
  // k = N: the points are the centres; areas 0.3 and 0.7, one frame each.
  const auto cells = v.partition({0.1, 0.5, 0.5, 0.5}, box, rng);
  const auto w = v.cell_weights(cells, box);
  EXPECT_NEAR(w[0], 0.3, 1e-12);
  EXPECT_NEAR(w[1], 0.7, 1e-12);
  // One cell: the whole box over every frame.
  VoronoiSpawner one(VoronoiOptions{1, false, std::nullopt});
  const auto all = one.partition({0.1, 0.5, 0.5, 0.5, 0.9, 0.9}, box, rng);
  EXPECT_NEAR(one.cell_weights(all, box)[0], 1.0 / 3.0, 1e-12);
}

TEST(VoronoiSpawner, ThreeClustersGiveThreeCellsOfTheirPopulations) {
  std::vector<double> pts;
  core::Rng noise(2);
  const double centre[3][2] = {{0.2, 0.2}, {0.8, 0.3}, {0.5, 0.85}};
  const int size[3] = {20, 30, 10};
  for (int c = 0; c < 3; ++c) {
    for (int i = 0; i < size[c]; ++i) {
      pts.push_back(centre[c][0] + 0.02 * (noise.uniform() - 0.5));
      pts.push_back(centre[c][1] + 0.02 * (noise.uniform() - 0.5));
    }
  }
  VoronoiSpawner v(VoronoiOptions{3, false, std::nullopt});
  core::Rng rng(5);
  const auto cells = v.partition(pts, {{0.0, 0.0}, {1.0, 1.0}, false}, rng);
  std::vector<int> pop(3, 0);
  for (const int l : cells.labels) ++pop[static_cast<std::size_t>(l)];
  std::sort(pop.begin(), pop.end());
  EXPECT_EQ(pop, (std::vector<int>{10, 20, 30}));
}

TEST(VoronoiSpawner, ChoosesFromTheWindowedPoolOnly) {
  // Iteration 0 (global 0..2) sits alone in a corner: it would own a huge cell. The pool is
  // iteration 1 only (first = 3), so every choice must be one of its frames.
  const auto h = two_iterations(2, {0.95, 0.95, 0.96, 0.95, 0.95, 0.96},
                                {0.1, 0.1, 0.15, 0.1, 0.1, 0.2, 0.3, 0.3});
  const auto grid = unit_grid();
  const binning::BinTable table;
  VoronoiSpawner v(VoronoiOptions{150, false, std::nullopt});
  core::Rng a(8);
  const SpawnPool pool{h, 3, table, grid};
  const auto chosen = v.choose(pool, 6, a);
  ASSERT_EQ(chosen.size(), 6U);
  for (const auto g : chosen) {
    EXPECT_GE(g, 3);
    EXPECT_LT(g, 7);
  }
  core::Rng b(8);
  EXPECT_EQ(v.choose(pool, 6, b), chosen);  // the same stream, the same frames
}

TEST(VoronoiSpawner, TargetClosenessAndPeriodicWrap) {
  // Three single-frame cells on a line y = 0.5 at x = 0.1, 0.5, 0.9; target at 0.12.
  VoronoiSpawner v(VoronoiOptions{3, false, std::vector<double>{0.12, 0.5}});
  const analysis::VoronoiBox box{{0.0, 0.0}, {1.0, 1.0}, false};
  core::Rng rng(1);
  const auto cells = v.partition({0.1, 0.5, 0.5, 0.5, 0.9, 0.5}, box, rng);
  const auto w = v.cell_weights(cells, box);
  // Areas 0.3, 0.4, 0.3; closeness 1, 0.5, 0 (distances 0, 0.4, 0.8 to the target's cell).
  EXPECT_NEAR(w[0], 0.3, 1e-12);
  EXPECT_NEAR(w[1], 0.2, 1e-12);
  EXPECT_NEAR(w[2], 0.0, 1e-12);
  // On a torus 0.9 is 0.2 from 0.1: closeness (0.4 - d)/0.4 over distances 0, 0.4, 0.2.
  VoronoiSpawner t(VoronoiOptions{3, true, std::vector<double>{0.12, 0.5}});
  analysis::VoronoiBox torus = box;
  torus.periodic = true;
  const auto tw = t.cell_weights(t.partition({0.1, 0.5, 0.5, 0.5, 0.9, 0.5}, torus, rng), torus);
  EXPECT_NEAR(tw[1], 0.0, 1e-12);
  EXPECT_NEAR(tw[2], 0.3 * 0.5, 1e-12);  // area 0.3 on the torus (0.7..1.0), closeness 0.5
}

TEST(VoronoiSpawner, StateRoundTripAndErrors) {
  VoronoiSpawner v(VoronoiOptions{150, false, std::nullopt});
  EXPECT_EQ(v.cells(), 150);
  v.set_cells(225);
  VoronoiSpawner w(VoronoiOptions{150, false, std::nullopt});
  w.restore(v.state());
  EXPECT_EQ(w.cells(), 225);
  EXPECT_THROW(w.restore(nlohmann::json{{"version", 2}, {"cells", 3}}), core::InputError);
  EXPECT_THROW(w.restore(nlohmann::json{{"version", 1}}), core::InputError);
  EXPECT_EQ(w.cells(), 225);
  const auto h = two_iterations(1, {0.0}, {1.0, 2.0});
  const auto grid = binning::UniformGrid({10}, {0.0}, {1.0});
  const binning::BinTable table;
  core::Rng rng(1);
  EXPECT_THROW(w.choose(SpawnPool{h, 0, table, grid}, 2, rng), core::InputError);
}

}  // namespace
}  // namespace trails::spawners
