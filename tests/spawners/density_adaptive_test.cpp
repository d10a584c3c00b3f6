// DensitySpawner with an adaptive binning.scheme (compat:adaptive-binning): the pool is binned by
// the spawner's own binner, fitted inside the campaign grid; hard mode restarts from the leading
// frame of an exploration front (its own population-1 bin under gradient and mab, where the
// tail shares bins); target closeness is linear; the state carries the binner.
#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "trails/binning/adaptive_binner.h"
#include "trails/core/rng.h"
#include "trails/spawners/density_spawner.h"

namespace trails::spawners {
namespace {

using binning::BinningScheme;

// 1-D front: 3000 frames decaying away from a basin at 1, the leading frame alone at 6.2, and
// its nearest neighbours (a sparse tail) between 4 and 5.5.
struct Front {
  features::FrameHistory history{1};
  binning::BinTable table{false};
  binning::UniformGrid grid{{10}, {0.0}, {10.0}};
  std::int64_t leading = 0;
  Front() {
    core::Rng rng(2);
    std::vector<double> x;
    for (int i = 0; i < 3000; ++i) x.push_back(1.0 + std::min(std::abs(rng.normal()) * 0.7, 2.5));
    for (int i = 0; i < 12; ++i) x.push_back(4.0 + 0.125 * i);
    leading = static_cast<std::int64_t>(x.size());
    x.push_back(6.2);
    const std::vector<features::FrameHistory::WalkerSpan> w = {
        {0, static_cast<std::int64_t>(x.size())}};
    history.append(0, w, x);
    std::vector<std::int64_t> bins;
    for (double v : x) bins.push_back(grid.bin_of(std::vector<double>{v}));
    table.add_block(0, bins);
  }
  SpawnPool pool() const { return SpawnPool{history, 0, table, grid}; }
};

DensitySpawner make_adaptive(BinningScheme s, bool hard = true,
                             std::optional<std::vector<double>> target = {}) {
  return DensitySpawner(DensityOptions{hard, 0, std::move(target), {s, 100, 3}});
}

TEST(DensityAdaptive, HardModeRestartsFromTheLeadingFrame) {
  const Front f;
  for (BinningScheme s : {BinningScheme::Gradient, BinningScheme::Mab}) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      DensitySpawner spawner = make_adaptive(s);
      core::Rng rng(seed);
      const auto chosen = spawner.choose(f.pool(), 1, rng);
      ASSERT_EQ(chosen.size(), 1u);
      // The leading frame is alone in its bin, and the one walker restarts from a bin of
      // population 1 (the lowest tier).
      const auto& b = *spawner.binner();
      const auto lead_bin = b.bin_of(f.history.point(f.leading));
      int lead_pop = 0;
      for (std::int64_t g = 0; g < f.history.frames(); ++g) {
        lead_pop += b.bin_of(f.history.point(g)) == lead_bin ? 1 : 0;
      }
      EXPECT_EQ(lead_pop, 1) << binning::scheme_name(s);
      int chosen_pop = 0;
      for (std::int64_t g = 0; g < f.history.frames(); ++g) {
        chosen_pop += b.bin_of(f.history.point(g)) == b.bin_of(f.history.point(chosen[0])) ? 1 : 0;
      }
      EXPECT_EQ(chosen_pop, 1) << binning::scheme_name(s);
    }
  }
}

TEST(DensityAdaptive, ChosenFramesAreInThePoolAndReproducible) {
  const Front f;
  for (BinningScheme s :
       {BinningScheme::Gradient, BinningScheme::Mab, BinningScheme::Eigenvector}) {
    for (bool hard : {true, false}) {
      DensitySpawner a = make_adaptive(s, hard), b = make_adaptive(s, hard);
      core::Rng r1(7), r2(7);
      const auto x = a.choose(f.pool(), 16, r1);
      EXPECT_EQ(x, b.choose(f.pool(), 16, r2));
      ASSERT_EQ(x.size(), 16u);
      for (auto g : x) EXPECT_TRUE(g >= 0 && g < f.history.frames());
    }
  }
}

TEST(DensityAdaptive, TargetModePrefersTheBinsNearTheTarget) {
  // Soft mode with a target at the leading frame: the target bin has closeness 1, the farthest
  // bin 0, so the farthest bin (at the low end) is never chosen.
  const Front f;
  DensitySpawner s = make_adaptive(BinningScheme::Gradient, false, std::vector<double>{6.2});
  core::Rng rng(4);
  const auto chosen = s.choose(f.pool(), 64, rng);
  const auto& b = *s.binner();
  std::int64_t lowest = b.total_bins();
  for (std::int64_t g = 0; g < f.history.frames(); ++g) {
    lowest = std::min(lowest, b.bin_of(f.history.point(g)));
  }
  for (auto g : chosen) EXPECT_NE(b.bin_of(f.history.point(g)), lowest);
}

TEST(DensityAdaptive, StateCarriesTheBinnerUniformStateIsUnchanged) {
  const Front f;
  DensitySpawner s = make_adaptive(BinningScheme::Mab);
  core::Rng rng(1);
  (void)s.choose(f.pool(), 4, rng);
  const auto state = s.state();
  ASSERT_TRUE(state.contains("binner"));
  DensitySpawner t = make_adaptive(BinningScheme::Mab);
  t.restore(state);
  EXPECT_EQ(t.state(), state);
  EXPECT_FALSE(make_adaptive(BinningScheme::Uniform).state().contains("binner"));
  EXPECT_EQ(make_adaptive(BinningScheme::Uniform).binner(), nullptr);
}

}  // namespace
}  // namespace trails::spawners
