// The trial launch element (docs/swarm.md, "The cycle", steps 1-2): the cycle's seeds drawn
// once, one task id per trial reserved, tasks from the anchor with fresh velocities, batches
// of probes in the legacy modes.
#include <gtest/gtest.h>

#include "cycle_world.h"
#include "trails/swarm/trial_launch.h"

namespace trails::swarm {
namespace {

TEST(TrialLaunch, HandsOutEveryTrialFromTheAnchorWithTheCyclesSeeds) {
  const config::SwarmOptions o = test::options(4);
  Anchor anchor = test::anchor_at({3.0, 4.0});
  anchor.state.velocities = {9.0, 9.0};
  TrialLaunch launch(2, anchor, o);
  ChainCycle c;
  c.cycle = 5;
  c.next_task_id = 100;
  launch.run(c);

  const CycleSeeds seeds = draw_cycle_seeds(7, 2, 5, 4);
  ASSERT_EQ(c.tasks.size(), 4U);
  for (std::size_t i = 0; i < 4; ++i) {
    const engines::SegmentTask& t = c.tasks[i];
    EXPECT_EQ(t.task_id, 100 + static_cast<std::int64_t>(i));
    EXPECT_EQ(t.walker, static_cast<std::int64_t>(i));
    EXPECT_EQ(t.iteration, 5);
    EXPECT_EQ(t.seed, seeds.trials[i]);
    EXPECT_EQ(t.start.positions, anchor.state.positions);
    EXPECT_TRUE(t.start.velocities.empty()) << "a trial draws fresh velocities";
    EXPECT_EQ(t.steps, o.tau1_steps);
    EXPECT_EQ(t.stride, o.tau1_steps) << "one frame: the trial's end";
  }
  EXPECT_EQ(c.seeds.selection_u, seeds.selection_u);
  EXPECT_EQ(c.seeds.tau2, seeds.tau2);
  EXPECT_EQ(c.first_task, 100);
  EXPECT_EQ(c.next_task_id, 104);
  EXPECT_EQ(c.submitted, 4U);
  EXPECT_EQ(c.batch_left, 4U);
  EXPECT_EQ(c.next, CycleStep::Wait);
}

TEST(TrialLaunch, LegacyModesHandOutProbesInBatchesWithoutRedrawing) {
  config::SwarmOptions o = test::options(5);
  o.probing = config::Probing::Unbind;
  const Anchor anchor = test::anchor_at({1.0, 0.0});
  TrialLaunch launch(0, anchor, o);
  ChainCycle c;
  c.batch = 3;
  launch.run(c);
  ASSERT_EQ(c.tasks.size(), 3U);
  EXPECT_EQ(c.next_task_id, 5) << "the cycle reserves one id per trial at once";
  const std::vector<std::uint64_t> seeds = c.seeds.trials;
  c.tasks.clear();

  launch.run(c);  // no improver in the first batch: the rest
  ASSERT_EQ(c.tasks.size(), 2U);
  EXPECT_EQ(c.tasks[0].task_id, 3);
  EXPECT_EQ(c.tasks[1].seed, seeds[4]);
  EXPECT_EQ(c.seeds.trials, seeds);
  EXPECT_EQ(c.next_task_id, 5);
  EXPECT_EQ(c.submitted, 5U);
  EXPECT_EQ(c.batch_left, 2U);
}

}  // namespace
}  // namespace trails::swarm
