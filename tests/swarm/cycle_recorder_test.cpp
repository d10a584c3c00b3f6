// The record element (docs/swarm.md, "The cycle"): the finished cycle's own fields from the
// cycle and the anchor, the trials that ran with their seeds, and the carried state of every
// checkpoint client, merged under its key.
#include <gtest/gtest.h>

#include "cycle_world.h"
#include "trails/swarm/cycle_recorder.h"
#include "trails/swarm/selection.h"

namespace trails::swarm {
namespace {

using test::Point;

struct FixedState final : core::CheckpointClient {
  nlohmann::json blob;
  std::vector<core::StateKey> state_keys() const override { return {{"swarm", 1}}; }
  nlohmann::json state() const override { return {{"swarm", blob}}; }
  void restore(const nlohmann::json& /*state*/) override {}
};

TEST(CycleRecorder, RecordsTheCycleTheAnchorAndEveryClientsState) {
  const ProgressMetric metric = test::distance_from_origin();
  const Anchor anchor = test::anchor_at({3.0, 4.0});
  FixedState path;
  path.blob = {{"path_steps", 30}};
  FixedState rules;
  rules.blob = {{"ratchet", 5.0}, {"stall_count", 2}};
  CycleRecorder recorder(4, anchor, metric, {0.5, 0.5}, {&path, &rules});

  ChainCycle c = test::cycle_with({Point{1.0, 0.0}, std::nullopt}, 3, 9);  // 2 of 3 probes ran
  c.probabilities = {1.0, 0.0};
  c.chosen = 0;
  c.outcome = store::CycleOutcome::Trial;
  c.tau2_metric = kNoValue;
  c.stop = "stalled";
  recorder.run(c);

  ASSERT_TRUE(c.finished.has_value());
  EXPECT_EQ(c.next, CycleStep::Wait);
  const FinishedCycle& f = *c.finished;
  const store::CycleRecord& r = f.record;
  EXPECT_EQ(r.chain, 4);
  EXPECT_EQ(r.cycle, 9);
  ASSERT_EQ(r.trial_metrics.size(), 2U) << "the probes that ran";
  EXPECT_EQ(r.trial_metrics[0], 1.0);
  EXPECT_EQ(r.probabilities, c.probabilities);
  EXPECT_EQ(r.chosen, 0);
  EXPECT_EQ(r.entropy, 0.0);
  EXPECT_EQ(r.outcome, store::CycleOutcome::Trial);
  EXPECT_EQ(r.anchor_metric, 5.0);
  EXPECT_EQ(r.anchor_cvs, anchor.cvs);
  EXPECT_EQ(r.reference, (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(r.start_cvs, (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(r.stop, "stalled");
  EXPECT_EQ(
      f.state,
      (nlohmann::json{{"swarm", {{"path_steps", 30}, {"ratchet", 5.0}, {"stall_count", 2}}}}));
  ASSERT_EQ(f.trials.size(), 2U);
  EXPECT_EQ(f.trials[1].error, "exploded");
  EXPECT_EQ(f.trial_seeds, (std::vector<std::uint64_t>{100, 101}));
  EXPECT_FALSE(f.tau2.has_value());
  EXPECT_EQ(f.tau2_seed, 99U);
}

}  // namespace
}  // namespace trails::swarm
