// The stop rules of a swarm chain (docs/swarm.md, "Stopping") and unfold's weighted score:
// known answers for the convergence conjunction, the folder's patience, the unfolder's window.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "support/compare.h"
#include "trails/core/error.h"
#include "trails/swarm/progress_metric.h"
#include "trails/swarm/stop_rules.h"

namespace trails::swarm {
namespace {

using config::EscapeMetric;
using config::SwarmMode;
using test_support::kNaN;

TEST(UnfoldScore, WeightedDisplacementAndDistance) {
  // (RMSD, Q) from (0.1, 0.9) to (0.4, 0.5): s = 10·0.3 − 1·(−0.4) = 3.4; d = √(3² + 0.4²).
  const ProgressMetric m(SwarmMode::Escape, EscapeMetric::DistanceFromStart, {0.1, 0.9}, {0.0, 0.0},
                         {10.0, -1.0});
  const std::vector<double> xi{0.4, 0.5};
  EXPECT_NEAR(m.weighted_displacement(xi), 3.4, 1e-12);
  EXPECT_NEAR(m(xi), std::sqrt(9.0 + 0.16), 1e-12);
  EXPECT_NEAR(m.weighted_displacement(std::vector<double>{kNaN, 0.5}), 0.4, 1e-12);
  EXPECT_TRUE(std::isnan(m.weighted_displacement(std::vector<double>{kNaN, kNaN})));
}

TEST(StopRules, ConvergenceIsTheConjunctionOfTheTestsSet) {
  config::SwarmOptions o;
  const ProgressMetric m(SwarmMode::Escape, EscapeMetric::DistanceFromStart, {0.0, 0.0},
                         {0.0, 0.0});
  const std::vector<double> xi{3.0, 0.05};
  EXPECT_FALSE(converged(o, m, {}, 0, xi, 3.0)) << "no test set: never";
  o.metric_at_least = 2.0;
  EXPECT_TRUE(converged(o, m, {}, 0, xi, 3.0));
  const std::vector<CvBound> q_below{{1, 0.1, true}};
  EXPECT_TRUE(converged(o, m, q_below, 0, xi, 3.0));
  EXPECT_FALSE(converged(o, m, q_below, 0, std::vector<double>{3.0, 0.2}, 3.0));
  EXPECT_FALSE(converged(o, m, {{0, 4.0, false}}, 0, xi, 3.0)) << "x0 ≥ 4 fails";
  o.min_cycles = 101;  // PathGennie's "cycle > 100"
  EXPECT_FALSE(converged(o, m, q_below, 100, xi, 3.0));
  EXPECT_TRUE(converged(o, m, q_below, 101, xi, 3.0));
}

TEST(StopRules, CvBoundsResolveByNameOrNameTheValidOnes) {
  config::SwarmOptions o;
  o.cv_at_most = {{"Q", 0.1}};
  o.cv_at_least = {{"rmsd", 0.5}};
  const auto b = resolve_cv_bounds(o, {"rmsd", "Q"}, "in.yaml");
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].column, 1u);
  EXPECT_TRUE(b[0].at_most);
  EXPECT_EQ(b[1].column, 0u);
  EXPECT_FALSE(b[1].at_most);
  try {
    (void)resolve_cv_bounds(o, {"x0", "x1"}, "in.yaml");
    FAIL() << "an unknown CV name must be refused";
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("convergence.cv_at_most.Q: no CV of that name; the CVs "
                                         "are: x0, x1"),
              std::string::npos)
        << e.what();
  }
}

TEST(StopRules, FolderPatienceCountsCyclesWithoutImprovement) {
  config::SwarmOptions o;
  o.stall_cycles = 3;
  o.stall_tolerance = 0.1;
  ChainMemory mem;
  mem.stall_best = 0.0;
  mem.steady_last = kNaN;
  // +0.05 is below the tolerance: no improvement; +0.5 resets the count.
  EXPECT_EQ(update_stall_rules(o, mem, 0.05, 0.0), "");
  EXPECT_EQ(mem.stall_count, 1);
  EXPECT_EQ(update_stall_rules(o, mem, 0.5, 0.0), "");
  EXPECT_EQ(mem.stall_count, 0);
  EXPECT_DOUBLE_EQ(mem.stall_best, 0.5);
  EXPECT_EQ(update_stall_rules(o, mem, 0.55, 0.0), "");
  EXPECT_EQ(update_stall_rules(o, mem, 0.2, 0.0), "");
  EXPECT_EQ(update_stall_rules(o, mem, 0.59, 0.0), "stalled");
}

TEST(StopRules, UnfolderWindowNeedsWMinusOneSmallChangesInARow) {
  config::SwarmOptions o;
  o.stagnation_window = 4;
  o.stagnation_tolerance = 0.01;
  ChainMemory mem;
  mem.steady_last = kNaN;
  mem.stall_best = 1e9;  // keep the patience rule out of the way (it is off anyway)
  EXPECT_EQ(update_stall_rules(o, mem, 0.0, 1.0), "");    // first value
  EXPECT_EQ(update_stall_rules(o, mem, 0.0, 1.005), "");  // 1 small change
  EXPECT_EQ(update_stall_rules(o, mem, 0.0, 1.1), "");    // a big one: start again
  EXPECT_EQ(mem.steady_count, 0);
  EXPECT_EQ(update_stall_rules(o, mem, 0.0, 1.101), "");
  EXPECT_EQ(update_stall_rules(o, mem, 0.0, 1.102), "");
  EXPECT_EQ(update_stall_rules(o, mem, 0.0, 1.103), "stagnated");  // 4 values, 3 small changes
}

}  // namespace
}  // namespace trails::swarm
