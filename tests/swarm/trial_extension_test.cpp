// The extension element (docs/swarm.md, "The cycle", steps 5-6): the chosen trial continued with
// its velocities and the τ2 seed; its end is the candidate unless it failed or, with
// reject_worse_tau2, lost progress over the trial.
#include <gtest/gtest.h>

#include <cmath>

#include "cycle_world.h"
#include "trails/swarm/trial_extension.h"

namespace trails::swarm {
namespace {

using test::Point;

struct Extension : ::testing::Test {
  config::SwarmOptions o = test::options(2);
  ProgressMetric metric = test::distance_from_origin();
  std::unique_ptr<features::Projection> projection = test::coordinates();
  // Trial 1 (progress 5) is chosen.
  ChainCycle chosen() const {
    ChainCycle c = test::cycle_with({Point{1.0, 0.0}, Point{3.0, 4.0}}, 2, 6);
    c.chosen = 1;
    return c;
  }
};

TEST_F(Extension, ContinuesTheChosenTrialWithItsVelocitiesAndTheTau2Seed) {
  TrialExtension extension(metric, *projection, o);
  ChainCycle c = chosen();
  c.next_task_id = 10;
  extension.run(c);
  ASSERT_EQ(c.tasks.size(), 1U);
  const engines::SegmentTask& t = c.tasks.front();
  EXPECT_EQ(t.task_id, 10);
  EXPECT_EQ(c.tau2_task, 10);
  EXPECT_EQ(c.next_task_id, 11);
  EXPECT_EQ(t.iteration, 6);
  EXPECT_EQ(t.walker, 2) << "after the trials that ran";
  EXPECT_EQ(t.start.positions, (std::vector<double>{3.0, 4.0}));
  EXPECT_EQ(t.start.velocities, (std::vector<double>{1.0, 2.0})) << "velocities continued";
  EXPECT_EQ(t.steps, o.tau2_steps);
  EXPECT_EQ(t.seed, c.seeds.tau2);
  EXPECT_EQ(c.next, CycleStep::Wait);
}

TEST_F(Extension, ItsEndIsTheCandidate) {
  TrialExtension extension(metric, *projection, o);
  ChainCycle c = chosen();
  c.arrived = test::ended_at(10, {6.0, 8.0});
  extension.run(c);
  ASSERT_TRUE(c.candidate.has_value());
  EXPECT_EQ(c.candidate->cvs, (std::vector<double>{6.0, 8.0}));
  EXPECT_EQ(c.candidate->metric, 10.0);
  EXPECT_TRUE(c.candidate->state.velocities.empty());
  EXPECT_EQ(c.outcome, store::CycleOutcome::Extended);
  EXPECT_EQ(c.steps, o.tau1_steps + o.tau2_steps);
  EXPECT_EQ(c.tau2_metric, 10.0);
  ASSERT_TRUE(c.tau2.has_value());
  EXPECT_EQ(c.tau2->task_id, 10);
  EXPECT_EQ(c.next, CycleStep::Guard);
}

TEST_F(Extension, RejectWorseTau2KeepsTheTrialsEndWhenTheExtensionLostProgress) {
  for (const bool reject : {false, true}) {
    o.reject_worse_tau2 = reject;
    TrialExtension extension(metric, *projection, o);
    ChainCycle c = chosen();
    c.arrived = test::ended_at(10, {2.0, 0.0});  // progress 2 < the trial's 5
    extension.run(c);
    EXPECT_EQ(c.tau2_metric, 2.0);
    EXPECT_EQ(c.candidate->metric, reject ? 5.0 : 2.0);
    EXPECT_EQ(c.outcome, reject ? store::CycleOutcome::Trial : store::CycleOutcome::Extended);
    EXPECT_EQ(c.steps, reject ? o.tau1_steps : o.tau1_steps + o.tau2_steps);
  }
}

TEST_F(Extension, AFailedExtensionFallsBackToTheTrialsEnd) {
  TrialExtension extension(metric, *projection, o);
  ChainCycle c = chosen();
  c.arrived = test::failed(10);
  extension.run(c);
  EXPECT_TRUE(std::isnan(c.tau2_metric));
  EXPECT_EQ(c.candidate->state.positions, (std::vector<double>{3.0, 4.0}));
  EXPECT_TRUE(c.candidate->state.velocities.empty());
  EXPECT_EQ(c.outcome, store::CycleOutcome::Trial);
  EXPECT_EQ(c.steps, o.tau1_steps);
  ASSERT_TRUE(c.tau2.has_value()) << "the failed extension is still recorded";
  EXPECT_FALSE(c.tau2->ok());
}

}  // namespace
}  // namespace trails::swarm
