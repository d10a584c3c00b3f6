// The selection element (docs/swarm.md, "The cycle", step 4, and "Legacy modes"): the softmax
// draw, the legacy modes' lowest-index improver, another batch when none improves, the best
// probe's end without τ2 (unbind, unfold) or extended (fold), and the error when all failed.
#include <gtest/gtest.h>

#include <cmath>

#include "cycle_world.h"
#include "support/compare.h"
#include "trails/core/error.h"
#include "trails/swarm/selection.h"
#include "trails/swarm/trial_selection.h"

namespace trails::swarm {
namespace {

using test::Point;

// A legacy mode's selection over `n` probes, the anchor at `at`, the stop rules' ratchet
// `ratchet`.
struct Probes {
  Probes(config::Probing probing, int n, Point at, double ratchet)
      : o(test::options(n)), anchor(test::anchor_at(at)), selection(0, anchor, memory, o) {
    o.probing = probing;
    memory.ratchet = ratchet;
  }
  config::SwarmOptions o;
  Anchor anchor;
  ChainMemory memory;
  TrialSelection selection;
};

TEST(TrialSelection, SoftmaxPicksTheTrialTheDrawFallsOn) {
  config::SwarmOptions o = test::options(3);
  o.sigma = 1.0;
  const Anchor anchor = test::anchor_at({0.0, 0.0});
  const ChainMemory memory;
  TrialSelection selection(0, anchor, memory, o);
  // Progress 1, 2, 3: ŝ = 0, 0.5, 1 and weights e^-1, e^-0.5, 1.
  const double z = std::exp(-1.0) + std::exp(-0.5) + 1.0;
  const double p0 = std::exp(-1.0) / z;
  const double p1 = std::exp(-0.5) / z;
  for (const auto& [u, expected] : std::vector<std::pair<double, std::int64_t>>{
           {0.0, 0}, {p0 * 0.5, 0}, {p0 + p1 * 0.5, 1}, {p0 + p1 + 1e-9, 2}, {0.999, 2}}) {
    ChainCycle c = test::cycle_with({Point{1.0, 0.0}, Point{2.0, 0.0}, Point{3.0, 0.0}}, 3);
    c.seeds.selection_u = u;
    selection.run(c);
    EXPECT_EQ(c.chosen, expected) << "u = " << u;
    EXPECT_NEAR(c.probabilities[0], p0, 1e-15);
    EXPECT_NEAR(c.probabilities[1], p1, 1e-15);
    EXPECT_EQ(c.next, CycleStep::Extend);
  }
}

TEST(TrialSelection, SoftmaxNeverPicksAFailedTrial) {
  const config::SwarmOptions o = test::options(3);
  const Anchor anchor = test::anchor_at({0.0, 0.0});
  const ChainMemory memory;
  TrialSelection selection(0, anchor, memory, o);
  for (const double u : {0.0, 0.5, 0.999}) {
    ChainCycle c = test::cycle_with({std::nullopt, Point{1.0, 0.0}, std::nullopt}, 3);
    c.seeds.selection_u = u;
    selection.run(c);
    EXPECT_EQ(c.chosen, 1);
    EXPECT_EQ(c.probabilities, (std::vector<double>{0.0, 1.0, 0.0}));
  }
}

TEST(TrialSelection, AllTrialsFailedIsAnEngineErrorNamingChainAndCycle) {
  for (const config::Probing probing : {config::Probing::None, config::Probing::Unbind}) {
    config::SwarmOptions o = test::options(2);
    o.probing = probing;
    const Anchor anchor = test::anchor_at({0.0, 0.0});
    const ChainMemory memory;
    TrialSelection selection(3, anchor, memory, o);
    ChainCycle c = test::cycle_with({std::nullopt, std::nullopt}, 2, 8);
    try {
      selection.run(c);
      FAIL() << "every trial failed";
    } catch (const core::EngineError& e) {
      test_support::expect_has(e.what(), "chain 3, cycle 8: all 2 trials failed");
      test_support::expect_has(e.what(), "(trial 0: exploded)");
    }
  }
}

TEST(TrialSelection, FirstImprovementTakesTheLowestIndexImprover) {
  Probes p(config::Probing::Unbind, 4, {0.0, 0.0}, 1.5);
  ChainCycle c =
      test::cycle_with({Point{1.0, 0.0}, Point{2.0, 0.0}, Point{3.0, 0.0}, Point{0.5, 0.0}}, 4);
  p.selection.run(c);
  EXPECT_EQ(c.chosen, 1) << "the first probe above the ratchet, not the best";
  EXPECT_EQ(c.probabilities, (std::vector<double>{0.0, 1.0, 0.0, 0.0}));
  EXPECT_EQ(c.next, CycleStep::Extend);
}

TEST(TrialSelection, NoImproverInABatchLaunchesTheNext) {
  Probes p(config::Probing::Unbind, 4, {0.0, 0.0}, 1.5);
  ChainCycle c = test::cycle_with({Point{1.0, 0.0}, Point{1.5, 0.0}}, 4);  // equal is no gain
  p.selection.run(c);
  EXPECT_EQ(c.next, CycleStep::Launch);
  EXPECT_EQ(c.chosen, -1);
}

TEST(TrialSelection, UnbindWithoutImproverTakesTheBestEndWithoutExtension) {
  Probes p(config::Probing::Unbind, 3, {0.0, 0.0}, 5.0);
  ChainCycle c = test::cycle_with({Point{1.0, 0.0}, Point{3.0, 4.0}, std::nullopt}, 3);
  p.selection.run(c);
  EXPECT_EQ(c.chosen, 1);
  EXPECT_EQ(c.next, CycleStep::Guard);
  ASSERT_TRUE(c.candidate.has_value());
  EXPECT_EQ(c.candidate->state.positions, (std::vector<double>{3.0, 4.0}));
  EXPECT_TRUE(c.candidate->state.velocities.empty());
  EXPECT_EQ(c.candidate->metric, 5.0);
  EXPECT_EQ(c.outcome, store::CycleOutcome::Trial);
  EXPECT_EQ(c.steps, p.o.tau1_steps);
}

TEST(TrialSelection, FoldBeatsTheAnchorAndExtendsTheBestWhenNoneImproves) {
  // The anchor's progress is 10; fold has no ratchet: probes of 1 and 3 would beat 0.
  Probes p(config::Probing::Fold, 3, {6.0, 8.0}, 0.0);
  ChainCycle c = test::cycle_with({Point{1.0, 0.0}, Point{3.0, 0.0}, Point{2.0, 0.0}}, 3);
  p.selection.run(c);
  EXPECT_EQ(c.chosen, 1);
  EXPECT_EQ(c.next, CycleStep::Extend);
  EXPECT_FALSE(c.candidate.has_value());
}

}  // namespace
}  // namespace trails::swarm
