// The trial scoring element (docs/swarm.md, "The cycle", step 3, and "Legacy modes"): the CVs
// and progress of each trial's end, a failed trial quarantined, unfold's weighted score before
// its phase switch, and selection once the batch is in.
#include <gtest/gtest.h>

#include <cmath>

#include "cycle_world.h"
#include "trails/swarm/trial_scoring.h"

namespace trails::swarm {
namespace {

TEST(TrialScoring, ScoresEachEndAndSelectsWhenTheBatchIsIn) {
  const config::SwarmOptions o = test::options(2);
  const ProgressMetric metric = test::distance_from_origin();
  const auto projection = test::coordinates();
  TrialScoring scoring(metric, *projection, o);
  ChainCycle c = test::cycle_with({}, 2);
  c.first_task = 40;
  c.batch_left = 2;

  c.arrived = test::ended_at(41, {3.0, 4.0});
  scoring.run(c);
  EXPECT_EQ(c.next, CycleStep::Wait);
  EXPECT_EQ(c.trial_cvs[1], (std::vector<double>{3.0, 4.0}));
  EXPECT_EQ(c.metrics[1], 5.0);
  EXPECT_EQ(c.values[1], 5.0);
  EXPECT_FALSE(c.arrived.has_value());
  ASSERT_TRUE(c.trials[1].has_value());

  c.arrived = test::failed(40);
  scoring.run(c);
  EXPECT_EQ(c.next, CycleStep::Select);
  EXPECT_TRUE(std::isnan(c.metrics[0])) << "a failed trial is quarantined";
  ASSERT_TRUE(c.trials[0].has_value());
  EXPECT_EQ(c.trials[0]->error, "exploded");
}

TEST(TrialScoring, UnfoldJudgesByTheWeightedScoreBeforeItsPhaseSwitch) {
  config::SwarmOptions o = test::options(1);
  o.probing = config::Probing::Unfold;
  o.unfold_phase_cycles = 3;
  const ProgressMetric metric(config::SwarmMode::Escape, config::EscapeMetric::DistanceFromStart,
                              {0.0, 0.0}, {0.0, 0.0}, {1.0, -1.0});
  const auto projection = test::coordinates();
  TrialScoring scoring(metric, *projection, o);
  for (const std::int64_t cycle : {2, 3}) {
    ChainCycle c = test::cycle_with({}, 1, cycle);
    c.batch_left = 1;
    c.arrived = test::ended_at(0, {3.0, 4.0});
    scoring.run(c);
    EXPECT_EQ(c.metrics[0], 5.0);
    EXPECT_EQ(c.values[0], cycle < 3 ? -1.0 : 5.0)
        << "cycle " << cycle << ": 3 − 4, or the distance";
  }
}

TEST(TrialScoring, EndCvsAreTheLastFrames) {
  const auto projection = test::coordinates();
  engines::SegmentResult r = test::ended_at(0, {1.0, 2.0});
  r.n_frames = 2;
  r.frames = {1.0, 2.0, 5.0, 6.0};
  EXPECT_EQ(end_cvs(r, *projection), (std::vector<double>{5.0, 6.0}));
}

}  // namespace
}  // namespace trails::swarm
