// The spawning element (campaign/spawn_element.h): it chooses the next walkers' frames from the
// coverage element's pool with the iteration's own random stream, and its "spawner" state
// restored into a fresh element spawns exactly the frames the original spawns.
#include <gtest/gtest.h>

#include "element_world.h"

using namespace trails;
using campaign::test::ElementWorld;

TEST(SpawnElement, ChoosesOneFramePerWalkerFromThePool) {
  ElementWorld w;
  const auto it = w.step(0);
  ASSERT_EQ(it.chosen.size(), static_cast<std::size_t>(campaign::test::kWalkers));
  ASSERT_EQ(it.rec.spawns.size(), it.chosen.size());
  for (std::size_t k = 0; k < it.chosen.size(); ++k) {
    EXPECT_EQ(it.rec.spawns[k].slot, static_cast<std::int64_t>(k));
    EXPECT_EQ(it.rec.spawns[k].source, w.history.key_of(it.chosen[k]));
    EXPECT_EQ(it.rec.spawns[k].pool_index, it.chosen[k] - w.coverage->tracker().pool_first_frame());
  }
  EXPECT_TRUE(w.spawn->slot_weights(it.chosen.size()).empty());  // not a weighted spawner
}

TEST(SpawnElement, TheSameSeedSpawnsTheSameFrames) {
  ElementWorld a, b;
  for (std::int64_t i = 0; i < 4; ++i) EXPECT_EQ(a.step(i).chosen, b.step(i).chosen) << i;
}

TEST(SpawnElement, StateRoundTripsUnderItsKey) {
  campaign::test::expect_state_round_trip(
      [](ElementWorld& w) -> campaign::SpawnElement& { return *w.spawn; }, "spawner", 4);
}

TEST(SpawnElement, ARestoredElementSpawnsIdentically) {
  ElementWorld a;
  for (std::int64_t i = 0; i < 4; ++i) a.step(i);
  auto b = ElementWorld::resumed(a.state(), 3);
  for (std::int64_t i = 4; i < 10; ++i) {
    const auto ia = a.step(i), ib = b->step(i);
    EXPECT_EQ(ia.chosen, ib.chosen) << i;
    EXPECT_EQ(a.spawn->state(), b->spawn->state()) << i;
  }
}
