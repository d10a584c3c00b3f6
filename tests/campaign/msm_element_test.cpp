// The MSM element (campaign/msm_element.h): inert unless enabled (no state, no builds); enabled,
// every joined build goes to its recorder, and its "msm" state, restored once the history holds
// the committed frames again, gives the builds the original element gives.
#include <gtest/gtest.h>

#include "element_world.h"

using namespace trails;
using campaign::test::ElementWorld;

TEST(MsmElement, InertWritesNoStateAndBuildsNothing) {
  ElementWorld w(/*msm_enabled=*/false);
  for (std::int64_t i = 0; i < 4; ++i) w.step(i);
  EXPECT_EQ(w.msm->state(), nlohmann::json::object());
  EXPECT_TRUE(w.builds.empty());
  EXPECT_EQ(w.msm->stage().latest(), nullptr);
}

TEST(MsmElement, EveryJoinedBuildIsRecorded) {
  ElementWorld w(/*msm_enabled=*/true);
  std::size_t joined = 0;
  for (std::int64_t i = 0; i < 5; ++i) joined += w.step(i).msm_built ? 1 : 0;
  ASSERT_GT(joined, 0U) << "min_frames was never reached";
  EXPECT_EQ(w.builds.size(), joined);
  ASSERT_NE(w.msm->stage().latest(), nullptr);
  EXPECT_EQ(w.msm->stage().latest()->iteration, w.builds.back().iteration);
}

TEST(MsmElement, StateRoundTripsAfterTheHistory) {
  ElementWorld a(/*msm_enabled=*/true);
  for (std::int64_t i = 0; i < 4; ++i) a.step(i);
  const auto state = a.msm->state();
  ASSERT_TRUE(state.contains("msm"));
  EXPECT_EQ(a.msm->restore_phase(), campaign::CheckpointClient::RestorePhase::AfterHistory);
  auto b = ElementWorld::resumed(a.state(), 3, /*msm_enabled=*/true);
  EXPECT_EQ(b->msm->state(), state);
}

TEST(MsmElement, ARestoredElementBuildsIdentically) {
  ElementWorld a(/*msm_enabled=*/true);
  for (std::int64_t i = 0; i < 4; ++i) a.step(i);
  auto b = ElementWorld::resumed(a.state(), 3, /*msm_enabled=*/true);
  for (std::int64_t i = 4; i < 8; ++i) {
    const auto ia = a.step(i), ib = b->step(i);
    ASSERT_EQ(ia.msm_built.has_value(), ib.msm_built.has_value()) << i;
    if (ia.msm_built) {  // the model, not the wall time of its build
      auto ja = ia.msm_built->to_json(), jb = ib.msm_built->to_json();
      ja.erase("build_s");
      jb.erase("build_s");
      EXPECT_EQ(ja, jb) << i;
    }
    EXPECT_EQ(ia.chosen, ib.chosen) << i;
    EXPECT_EQ(a.msm->state(), b->msm->state()) << i;
  }
}
