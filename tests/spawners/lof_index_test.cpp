// The incremental LOF (spawners/lof_index.h) against the full recomputation
// (analysis::local_outlier_factor over the pool), bitwise, over a growing campaign: 2-D clouds
// that move and spread (outliers appear and are absorbed), with duplicates and lattice ties, a
// pool smaller than neighbors + 1 (k grows), and history_window (the pool loses its front).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "trails/analysis/local_outlier_factor.h"
#include "trails/core/rng.h"
#include "trails/spawners/lof_index.h"
#include "trails/spawners/lof_spawner.h"
#include "trails/spawners/spawner.h"

namespace trails::spawners {
namespace {

// Iteration `it` of a made-up exploration: `frames` points around a centre that moves with
// `it`, every 7th point far out, every 5th a copy of the one before, a few on a coarse lattice.
std::vector<double> iteration_points(std::int64_t it, int frames, core::Rng& rng) {
  std::vector<double> cvs;
  for (int f = 0; f < frames; ++f) {
    double x = 0.3 * static_cast<double>(it) + 0.2 * rng.normal();
    double y = std::sin(0.5 * static_cast<double>(it)) + 0.2 * rng.normal();
    if (f % 7 == 3) x += 3.0 * rng.normal();
    if (f % 11 == 0) {  // lattice: many exactly equal distances
      x = std::round(x * 4.0) / 4.0;
      y = std::round(y * 4.0) / 4.0;
    }
    if (f % 5 == 4 && !cvs.empty()) {  // a duplicate of the previous frame
      x = cvs[cvs.size() - 2];
      y = cvs[cvs.size() - 1];
    }
    cvs.push_back(x);
    cvs.push_back(y);
  }
  return cvs;
}

// Iteration `it` of a made-up campaign of trajectories: random walks of small steps, each
// restarted from an earlier frame, so chunks of consecutive frames are compact and the chunk
// tests of the index skip most of them (the case they are for).
std::vector<double> walk_points(const features::FrameHistory& h, int frames, core::Rng& rng) {
  std::vector<double> cvs;
  double x = 0.0, y = 0.0;
  for (int f = 0; f < frames; ++f) {
    if (f % 50 == 0 && h.frames() > 0) {
      const auto p =
          h.point(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(h.frames()))));
      x = p[0];
      y = p[1];
    }
    x += 0.05 * rng.normal();
    y += 0.05 * rng.normal();
    cvs.push_back(x);
    cvs.push_back(y);
  }
  return cvs;
}

// Grows a history iteration by iteration; after each, the index's LOF of the pool (all history,
// or the last `window` + 1 iterations) must equal the full recomputation bit for bit.
void compare_over_campaign(int neighbors, int frames, int iterations, int window,
                           bool walks = false) {
  features::FrameHistory h(2);
  LofIndex index(neighbors);
  core::Rng rng(17);
  for (std::int64_t it = 0; it < iterations; ++it) {
    const int n = frames + static_cast<int>(it % 3) * 40;
    const auto cvs = walks ? walk_points(h, n, rng) : iteration_points(it, n, rng);
    const std::vector<features::FrameHistory::WalkerSpan> w = {
        {0, static_cast<std::int64_t>(cvs.size() / 2)}};
    h.append(it, w, cvs);
    const std::size_t keep = window < 0 ? h.iterations() : static_cast<std::size_t>(window) + 1;
    const std::size_t b0 = h.iterations() > keep ? h.iterations() - keep : 0;
    const std::int64_t first = h.block_first(b0);
    if (h.frames() - first < 2) continue;
    const auto pts = pool_points(h, first);
    const int k = static_cast<int>(std::min<std::int64_t>(neighbors, h.frames() - first - 1));
    const auto expected = analysis::local_outlier_factor(pts, 2, k);
    const auto& got = index.update(h, first);
    ASSERT_EQ(got.size(), expected.size()) << "iteration " << it;
    for (std::size_t i = 0; i < got.size(); ++i) {
      // Bitwise: EXPECT_EQ on doubles compares exactly.
      ASSERT_EQ(got[i], expected[i]) << "iteration " << it << " pool frame " << i;
    }
  }
}

TEST(LofIndex, IncrementalEqualsFullRecomputationWholeHistory) {
  compare_over_campaign(20, 300, 12, -1);
}

TEST(LofIndex, IncrementalEqualsFullRecomputationWithHistoryWindow) {
  compare_over_campaign(20, 300, 12, 2);
  compare_over_campaign(5, 150, 10, 0);  // the pool is the current iteration only
}

TEST(LofIndex, IncrementalEqualsFullRecomputationOnTrajectories) {
  compare_over_campaign(20, 400, 25, -1, true);
  compare_over_campaign(20, 400, 12, 3, true);
}

TEST(LofIndex, SmallPoolsWhereKGrowsWithThePool) { compare_over_campaign(20, 3, 12, -1); }

// A history replayed in place (a retrained space re-projects every frame into the same object)
// is noticed even without reset(): the scores are the new points', not the old ones'.
TEST(LofIndex, HistoryReplayedInPlaceRebuilds) {
  features::FrameHistory h(2);
  LofIndex index(5);
  core::Rng rng(3);
  const std::vector<features::FrameHistory::WalkerSpan> w = {{0, 100}};
  for (std::int64_t it = 0; it < 3; ++it) h.append(it, w, iteration_points(it, 100, rng));
  index.update(h, 0);
  h = features::FrameHistory(2);
  for (std::int64_t it = 0; it < 4; ++it) h.append(it, w, iteration_points(it + 7, 100, rng));
  EXPECT_EQ(index.update(h, 0), analysis::local_outlier_factor(pool_points(h, 0), 2, 5));
}

// The spawner through its index: the same weights as a fresh spawner (which builds from
// scratch, as a resumed run does) after every iteration, and the same draws.
TEST(LofIndex, SpawnerWithIndexMatchesAFreshOne) {
  features::FrameHistory h(2);
  LofSpawner warm(LofOptions{10, std::nullopt});
  core::Rng rng(5);
  for (std::int64_t it = 0; it < 6; ++it) {
    const auto cvs = iteration_points(it, 200, rng);
    const std::vector<features::FrameHistory::WalkerSpan> w = {{0, 200}};
    h.append(it, w, cvs);
    LofSpawner fresh(LofOptions{10, std::nullopt});
    EXPECT_EQ(warm.frame_weights(h, 0), fresh.frame_weights(h, 0));
    core::Rng a(static_cast<std::uint64_t>(it)), b(static_cast<std::uint64_t>(it));
    EXPECT_EQ(warm.choose(h, 0, 8, a), fresh.choose(h, 0, 8, b));
  }
}

}  // namespace
}  // namespace trails::spawners
