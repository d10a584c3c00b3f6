// The coverage element (campaign/coverage_element.h): it records coverage in the iteration's
// record, climbs the resolution ladder on a plateau, and its "resolution" state restored into a
// fresh element continues exactly as the original does.
#include <gtest/gtest.h>

#include "element_world.h"

using namespace trails;
using campaign::test::ElementWorld;

TEST(CoverageElement, RecordsCoverageOfTheGridTheSpawnerUsed) {
  ElementWorld w;
  const auto it = w.step(0);
  EXPECT_EQ(it.rec.cumulative_frames, campaign::test::kWalkers * campaign::test::kFrames);
  EXPECT_EQ(it.rec.total_bins, 16);
  EXPECT_EQ(it.rec.n_bins, (std::vector<int>{4, 4}));
  EXPECT_GT(it.rec.occupied_bins, 0);
  EXPECT_EQ(it.rec.occupied_bins, w.coverage->tracker().coverage().occupied());
  EXPECT_DOUBLE_EQ(w.coverage->explored_fraction(), it.rec.occupied_bins / 16.0);
}

TEST(CoverageElement, APlateauRefinesTheGridAndRebinsHistory) {
  ElementWorld w;
  std::vector<int> before = w.coverage->resolution().n_bins();
  bool refined = false;
  for (std::int64_t i = 0; i < 30 && !refined; ++i) {
    w.step(i);
    refined = w.coverage->resolution().n_bins() != before;
  }
  ASSERT_TRUE(refined) << "the drifting frames never left the ladder's bins on a plateau";
  // The tables are on the refined grid and hold every frame again.
  EXPECT_EQ(w.coverage->tracker().grid().n_bins(), w.coverage->resolution().n_bins());
  EXPECT_EQ(w.coverage->tracker().coverage().frames(), w.history.frames());
}

TEST(CoverageElement, StateRoundTripsUnderItsKey) {
  campaign::test::expect_state_round_trip(
      [](ElementWorld& w) -> campaign::CoverageElement& { return *w.coverage; }, "resolution", 6);
}

TEST(CoverageElement, ARestoredElementContinuesIdentically) {
  ElementWorld a;
  for (std::int64_t i = 0; i < 5; ++i) a.step(i);
  auto b = ElementWorld::resumed(a.state(), 4);
  for (std::int64_t i = 5; i < 12; ++i) {
    const auto ra = a.step(i).rec, rb = b->step(i).rec;
    EXPECT_EQ(ra.occupied_bins, rb.occupied_bins) << i;
    EXPECT_EQ(ra.n_bins, rb.n_bins) << i;
    EXPECT_EQ(ra.cumulative_frames, rb.cumulative_frames) << i;
    EXPECT_EQ(a.coverage->state(), b->coverage->state()) << i;
  }
}
