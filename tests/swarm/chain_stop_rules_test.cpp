// The stop-rules element (docs/swarm.md, "Stopping" and "Legacy modes"): the ratchet from the
// start's value up to the best anchor, unfold's phase switch, the stall rules and convergence
// on the new anchor, and ChainMemory round-tripping through state()/restore(), from the
// element itself and from a committed cycle record.
#include <gtest/gtest.h>

#include <cmath>

#include "cycle_world.h"
#include "support/compare.h"
#include "trails/swarm/chain_stop_rules.h"

namespace trails::swarm {
namespace {

using test_support::same_bits;

std::vector<double> bits(const ChainMemory& m) {
  return {m.ratchet, m.stall_best, static_cast<double>(m.stall_count), m.steady_last,
          static_cast<double>(m.steady_count)};
}

TEST(ChainStopRules, TheRatchetStartsAtTheStartAndRisesToTheBestAnchor) {
  config::SwarmOptions o = test::options(1);
  o.probing = config::Probing::Unbind;
  const ProgressMetric metric = test::distance_from_origin();
  Anchor anchor = test::anchor_at({1.0, 0.0});
  ChainStopRules rules(anchor, metric, {}, o);
  EXPECT_EQ(rules.memory().ratchet, 1.0);
  EXPECT_TRUE(std::isnan(rules.memory().steady_last));
  for (const auto& [x, ratchet] :
       std::vector<std::pair<double, double>>{{3.0, 3.0}, {2.0, 3.0}, {4.0, 4.0}}) {
    anchor = test::anchor_at({x, 0.0});
    ChainCycle c;
    rules.run(c);
    EXPECT_EQ(rules.memory().ratchet, ratchet);
    EXPECT_EQ(c.next, CycleStep::Record);
  }
}

TEST(ChainStopRules, UnfoldsPhaseSwitchSetsTheRatchetToTheDistanceAndRestartsTheWindow) {
  config::SwarmOptions o = test::options(1);
  o.probing = config::Probing::Unfold;
  o.unfold_phase_cycles = 2;
  const ProgressMetric metric(config::SwarmMode::Escape, config::EscapeMetric::DistanceFromStart,
                              {0.0, 0.0}, {0.0, 0.0}, {1.0, -1.0});
  Anchor anchor = test::anchor_at({0.0, 0.0});
  ChainStopRules rules(anchor, metric, {}, o);
  EXPECT_EQ(rules.memory().ratchet, 0.0) << "the start's score";
  anchor = test::anchor_at({3.0, 4.0});  // score −1, distance 5
  ChainCycle c;
  rules.run(c);
  EXPECT_EQ(rules.memory().ratchet, 0.0) << "phase 1 ratchets the score";
  EXPECT_EQ(rules.memory().steady_last, -1.0);
  rules.open_cycle(1);
  EXPECT_EQ(rules.memory().ratchet, 0.0);
  rules.open_cycle(2);
  EXPECT_EQ(rules.memory().ratchet, 5.0);
  EXPECT_TRUE(std::isnan(rules.memory().steady_last));
  EXPECT_EQ(rules.memory().steady_count, 0);
}

TEST(ChainStopRules, StallAndConvergenceEndTheChain) {
  config::SwarmOptions o = test::options(1);
  o.stall_cycles = 2;
  const ProgressMetric metric = test::distance_from_origin();
  Anchor anchor = test::anchor_at({1.0, 0.0});
  ChainStopRules rules(anchor, metric, {}, o);
  ChainCycle first;
  rules.run(first);
  EXPECT_EQ(first.stop, "");
  ChainCycle second;
  rules.run(second);
  EXPECT_EQ(second.stop, "stalled");
  EXPECT_FALSE(second.converged);

  o.metric_at_least = 1.0;  // the anchor passes: a converged chain has no stall reason
  ChainCycle third;
  rules.run(third);
  EXPECT_TRUE(third.converged);
  EXPECT_EQ(third.stop, "");
}

TEST(ChainStopRules, TheConvergenceFunctionIsAskedOnTheAnchorsPositions) {
  config::SwarmOptions o = test::options(1);
  const ProgressMetric metric = test::distance_from_origin();
  Anchor anchor = test::anchor_at({1.0, 2.0});
  ChainStopRules rules(anchor, metric, {}, o);
  std::vector<double> asked;
  rules.set_convergence_function([&](std::span<const double> x) {
    asked.assign(x.begin(), x.end());
    return true;
  });
  ChainCycle c;
  rules.run(c);
  EXPECT_TRUE(c.converged);
  EXPECT_EQ(asked, (std::vector<double>{1.0, 2.0}));
}

TEST(ChainStopRules, MemoryRoundTripsThroughStateAndContinuesAsTheOriginal) {
  config::SwarmOptions o = test::options(1);
  o.probing = config::Probing::Unbind;
  o.stall_cycles = 5;
  o.stagnation_window = 4;
  const ProgressMetric metric = test::distance_from_origin();
  Anchor anchor = test::anchor_at({1.0, 0.0});
  ChainStopRules rules(anchor, metric, {}, o);
  for (const double x : {2.0, 2.0005, 2.0008}) {
    anchor = test::anchor_at({x, 0.0});
    ChainCycle c;
    rules.run(c);
  }
  const nlohmann::json state = rules.state();
  Anchor start = test::anchor_at({1.0, 0.0});
  ChainStopRules restored(start, metric, {}, o);
  EXPECT_FALSE(same_bits(bits(restored.memory()), bits(rules.memory())));
  restored.restore(state);
  EXPECT_TRUE(same_bits(bits(restored.memory()), bits(rules.memory())));
  // Both go on alike: the counters continue, they do not restart.
  start = anchor;
  ChainCycle a;
  ChainCycle b;
  rules.run(a);
  restored.run(b);
  EXPECT_TRUE(same_bits(bits(restored.memory()), bits(rules.memory())));
  EXPECT_EQ(rules.memory().stall_count, 3);
  EXPECT_EQ(b.stop, a.stop);
}

TEST(ChainStopRules, RestoresFromACommittedCycleRecord) {
  config::SwarmOptions o = test::options(1);
  o.probing = config::Probing::Unbind;
  const ProgressMetric metric = test::distance_from_origin();
  const Anchor anchor = test::anchor_at({1.0, 0.0});
  store::CycleRecord record;
  record.ratchet = 7.0;
  record.stall_best = 6.0;
  record.stall_count = 3;
  record.steady_last = test_support::kNaN;
  record.steady_count = 2;
  ChainStopRules rules(anchor, metric, {}, o);
  nlohmann::json committed = {{"swarm", store::to_json(record)}};
  rules.restore(committed);
  EXPECT_TRUE(same_bits(bits(rules.memory()), {7.0, 6.0, 3.0, test_support::kNaN, 2.0}));
  // What state() writes is what the record stores.
  for (const char* key : {"ratchet", "stall_best", "stall_count", "steady_last", "steady_count"}) {
    EXPECT_EQ(rules.state().at("swarm").at(key), committed.at("swarm").at(key)) << key;
  }
  // A record written before the stall rules existed had none set.
  for (const char* key : {"stall_best", "stall_count", "steady_last", "steady_count"}) {
    committed["swarm"].erase(key);
  }
  rules.restore(committed);
  EXPECT_TRUE(
      same_bits(bits(rules.memory()), {7.0, test_support::kNaN, 0.0, test_support::kNaN, 0.0}));
}

TEST(ChainStopRules, ModesWithoutARatchetStoreNone) {
  const config::SwarmOptions o = test::options(1);
  const ProgressMetric metric = test::distance_from_origin();
  const Anchor anchor = test::anchor_at({1.0, 0.0});
  const ChainStopRules rules(anchor, metric, {}, o);
  EXPECT_TRUE(rules.state().at("swarm").at("ratchet").is_null());
}

}  // namespace
}  // namespace trails::swarm
