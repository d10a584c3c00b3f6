// The anchor guard element (docs/swarm.md, "The cycle", step 6): reject_worse_anchor keeps the
// anchor and adds no steps; otherwise the candidate is the new anchor. Its path length
// round-trips through state()/restore().
#include <gtest/gtest.h>

#include "cycle_world.h"
#include "trails/swarm/anchor_guard.h"

namespace trails::swarm {
namespace {

ChainCycle with_candidate(test::Point p, std::int64_t steps) {
  ChainCycle c;
  c.candidate = test::anchor_at(p);
  c.outcome = store::CycleOutcome::Extended;
  c.steps = steps;
  return c;
}

// A guard over an anchor at `at`, with or without reject_worse_anchor.
struct Guarded {
  Guarded(test::Point at, bool reject) : anchor(test::anchor_at(at)), guard(anchor, metric, o) {
    o.reject_worse_anchor = reject;
  }
  config::SwarmOptions o = test::options(1);
  ProgressMetric metric = test::distance_from_origin();
  Anchor anchor;
  AnchorGuard guard;
};

TEST(AnchorGuard, TheCandidateBecomesTheAnchor) {
  Guarded g({1.0, 0.0}, true);
  ChainCycle c = with_candidate({3.0, 4.0}, 30);
  g.guard.run(c);
  EXPECT_EQ(g.anchor.cvs, (std::vector<double>{3.0, 4.0}));
  EXPECT_EQ(c.outcome, store::CycleOutcome::Extended);
  EXPECT_EQ(g.guard.path_steps(), 30);
  EXPECT_EQ(c.next, CycleStep::Stop);
}

TEST(AnchorGuard, RejectWorseAnchorKeepsTheAnchorAndAddsNoSteps) {
  for (const bool reject : {false, true}) {
    Guarded g({3.0, 4.0}, reject);
    ChainCycle c = with_candidate({1.0, 0.0}, 30);
    g.guard.run(c);
    EXPECT_EQ(g.anchor.metric, reject ? 5.0 : 1.0);
    EXPECT_EQ(c.outcome, reject ? store::CycleOutcome::KeptAnchor : store::CycleOutcome::Extended);
    EXPECT_EQ(g.guard.path_steps(), reject ? 0 : 30);
  }
}

TEST(AnchorGuard, PathStepsRoundTripThroughStateAndContinue) {
  Guarded g({1.0, 0.0}, false);
  ChainCycle first = with_candidate({2.0, 0.0}, 30);
  g.guard.run(first);
  const nlohmann::json state = g.guard.state();
  EXPECT_EQ(state.at("swarm").at("path_steps"), 30);

  Guarded restored({2.0, 0.0}, false);
  EXPECT_EQ(restored.guard.path_steps(), 0);
  restored.guard.restore(state);
  EXPECT_EQ(restored.guard.path_steps(), 30);
  ChainCycle a = with_candidate({3.0, 0.0}, 10);
  ChainCycle b = with_candidate({3.0, 0.0}, 10);
  g.guard.run(a);
  restored.guard.run(b);
  EXPECT_EQ(restored.guard.path_steps(), 40);
  EXPECT_EQ(restored.guard.state(), g.guard.state());
}

}  // namespace
}  // namespace trails::swarm
