// The spawner's pool honours history_window (None: all; k: last k iterations + current; 0:
// current only) while the coverage table always holds everything, and a regrid re-bins history.
#include <gtest/gtest.h>

#include "trails/campaign/coverage_tracker.h"

using namespace trails;

namespace {

// Adds `iterations` blocks of 4 frames each; iteration i's frames sit at x = i + 0.5 (bin i).
void fill(features::FrameHistory& h, campaign::CoverageTracker& t, int iterations) {
  for (int i = 0; i < iterations; ++i) {
    std::vector<features::FrameHistory::WalkerSpan> w = {{0, 4}};
    std::vector<double> cv(4, i + 0.5);
    h.append(i, w, cv);
    t.add_latest(h);
  }
}

binning::UniformGrid grid10() { return binning::UniformGrid({10}, {0.0}, {10.0}); }

}  // namespace

TEST(CoverageTracker, NoWindowPoolsEverything) {
  features::FrameHistory h(1);
  campaign::CoverageTracker t(grid10(), std::nullopt);
  fill(h, t, 5);
  EXPECT_EQ(t.pool().frames(), 20);
  EXPECT_EQ(t.coverage().occupied(), 5);
  EXPECT_EQ(t.pool_first_frame(), 0);
}

TEST(CoverageTracker, WindowKeepsLastKPlusCurrent) {
  for (int k : {0, 1, 2, 99}) {
    features::FrameHistory h(1);
    campaign::CoverageTracker t(grid10(), k);
    fill(h, t, 5);
    const int pooled = std::min(k + 1, 5);
    EXPECT_EQ(t.pool().frames(), 4 * pooled) << "window " << k;
    EXPECT_EQ(t.pool().occupied(), pooled);
    EXPECT_EQ(t.pool_first_frame(), 4 * (5 - pooled));
    EXPECT_EQ(t.coverage().frames(), 20) << "coverage ignores the window";
    // The oldest pooled frame is from iteration 5 - pooled.
    EXPECT_EQ(t.pool().population(5 - pooled), 4);
    if (pooled < 5) {
      EXPECT_EQ(t.pool().population(4 - pooled), 0);
    }
  }
}

TEST(CoverageTracker, RegridRebinsHistoryAndKeepsTheWindow) {
  features::FrameHistory h(1);
  campaign::CoverageTracker t(grid10(), 1);
  fill(h, t, 6);
  t.regrid({5}, h);  // bins of width 2: iterations 0,1 -> bin 0; 2,3 -> 1; 4,5 -> 2
  EXPECT_EQ(t.grid().n_bins(), std::vector<int>{5});
  EXPECT_EQ(t.coverage().occupied(), 3);
  EXPECT_EQ(t.coverage().population(0), 8);
  EXPECT_EQ(t.pool().frames(), 8);
  EXPECT_EQ(t.pool().population(2), 8);
  EXPECT_EQ(t.pool_first_frame(), 16);
}
