// The swarm's progress metrics (docs/swarm.md, "Progress") and the per-cycle seed order.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "support/compare.h"
#include "trails/core/rng.h"
#include "trails/swarm/chain.h"
#include "trails/swarm/progress_metric.h"

namespace trails::swarm {
namespace {

using config::EscapeMetric;
using config::SwarmMode;
using test_support::kNaN;

TEST(ProgressMetric, EscapeDistanceFromStart) {
  const ProgressMetric m(SwarmMode::Escape, EscapeMetric::DistanceFromStart, {1.0, 2.0},
                         {0.0, 0.0});
  EXPECT_DOUBLE_EQ(m(std::vector<double>{4.0, 6.0}), 5.0);
  EXPECT_DOUBLE_EQ(m(std::vector<double>{1.0, 2.0}), 0.0);
}

TEST(ProgressMetric, EscapeCv0IsTheFirstComponent) {
  const ProgressMetric m(SwarmMode::Escape, EscapeMetric::Cv0, {1.0, 2.0}, {0.0, 0.0});
  EXPECT_DOUBLE_EQ(m(std::vector<double>{-0.7, 100.0}), -0.7);
}

TEST(ProgressMetric, TargetIsMinusTheDistance) {
  const ProgressMetric m(SwarmMode::Target, EscapeMetric::DistanceFromStart, {0.0, 1.0},
                         {0.0, 0.0});
  EXPECT_DOUBLE_EQ(m(std::vector<double>{3.0, 5.0}), -5.0);
  EXPECT_DOUBLE_EQ(m.distance(std::vector<double>{3.0, 5.0}), 5.0);
}

TEST(ProgressMetric, PeriodicComponentsUseTheMinimumImage) {
  const double two_pi = 2.0 * std::numbers::pi;
  const ProgressMetric m(SwarmMode::Target, EscapeMetric::DistanceFromStart, {3.0, 0.0},
                         {two_pi, 0.0});
  // 3.0 and −3.0 rad are 2π − 6 ≈ 0.283 apart across ±π, not 6.
  EXPECT_NEAR(m.distance(std::vector<double>{-3.0, 0.0}), two_pi - 6.0, 1e-12);
  EXPECT_NEAR(periodic_difference(0.1, two_pi - 0.1, two_pi), 0.2, 1e-12);
  EXPECT_DOUBLE_EQ(periodic_difference(5.0, 1.0, 0.0), 4.0);
}

TEST(ProgressMetric, NonFiniteComponentsAreMasked) {
  const ProgressMetric m(SwarmMode::Escape, EscapeMetric::DistanceFromStart, {0.0, 0.0},
                         {0.0, 0.0});
  EXPECT_DOUBLE_EQ(m(std::vector<double>{kNaN, 2.0}), 2.0);
  EXPECT_TRUE(std::isnan(m(std::vector<double>{kNaN, kNaN})));
}

TEST(CycleSeeds, DrawnInPathGennieOrderFromTheChainStream) {
  // N trial seeds, then the selection draw, then the τ2 seed, from (seed + chain, cycle).
  const auto s = draw_cycle_seeds(7, 2, 5, 3);
  core::Rng rng = core::Rng::stream(9, "swarm-cycle", 5);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(s.trials[static_cast<std::size_t>(i)], rng.next_u64());
  EXPECT_EQ(s.selection_u, rng.uniform());
  EXPECT_EQ(s.tau2, rng.next_u64());
  // Chain 2 of seed 7 is chain 0 of seed 9; another cycle differs.
  EXPECT_EQ(draw_cycle_seeds(9, 0, 5, 3).trials, s.trials);
  EXPECT_NE(draw_cycle_seeds(7, 2, 6, 3).trials, s.trials);
}

}  // namespace
}  // namespace trails::swarm
