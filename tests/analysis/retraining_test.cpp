// Retraining schedules (fixed, VAMP-adaptive), controller state round trip, memory pruning.
#include "trails/analysis/retraining.h"

#include <gtest/gtest.h>

#include <set>

#include "trails/core/error.h"

namespace trails::analysis {
namespace {

TEST(Retraining, FixedSchedule) {
  RetrainOptions o;
  o.retrain_freq = 3;
  const RetrainController c(o);
  EXPECT_TRUE(c.should_retrain(1, false, std::nullopt));  // no model yet
  EXPECT_FALSE(c.should_retrain(1, true, std::nullopt));
  EXPECT_FALSE(c.should_retrain(2, true, 0.1));
  EXPECT_TRUE(c.should_retrain(3, true, std::nullopt));
  EXPECT_TRUE(c.should_retrain(6, true, std::nullopt));
  o.retrain_freq = 0;
  EXPECT_FALSE(RetrainController(o).should_retrain(6, true, std::nullopt));
}

TEST(Retraining, VampAdaptiveSequence) {
  RetrainOptions o;
  o.policy = RetrainPolicy::VampAdaptive;
  o.vamp_retrain_tol = 0.1;
  o.min_interval = 2;
  o.max_interval = 5;
  RetrainController c(o);
  EXPECT_TRUE(c.should_retrain(0, false, std::nullopt));
  c.notify_retrained(2.0);
  EXPECT_EQ(c.reference_score(), 2.0);
  c.notify_skipped();                                     // 1 since retrain: below min_interval
  EXPECT_FALSE(c.should_retrain(2, true, 0.5));           // a big drop, but too soon
  c.notify_skipped();                                     // 2
  EXPECT_FALSE(c.should_retrain(3, true, 1.81));          // drop 0.095 <= 0.1
  EXPECT_TRUE(c.should_retrain(3, true, 1.79));           // drop 0.105 > 0.1
  EXPECT_FALSE(c.should_retrain(3, true, std::nullopt));  // no current score
  c.notify_retrained(1.5);                                // reference keeps the maximum
  EXPECT_EQ(c.reference_score(), 2.0);
  EXPECT_EQ(c.iterations_since_retrain(), 0);
  for (int k = 0; k < 5; ++k) c.notify_skipped();
  EXPECT_TRUE(c.should_retrain(9, true, std::nullopt));  // max_interval reached
  c.notify_retrained(std::nullopt);
  EXPECT_EQ(c.reference_score(), 2.0);
}

TEST(Retraining, StateRoundTrips) {
  RetrainOptions o;
  o.policy = RetrainPolicy::VampAdaptive;
  RetrainController c(o);
  c.notify_retrained(1.25);
  c.notify_skipped();
  RetrainController d(o);
  d.restore(nlohmann::json::parse(c.state().dump()));
  EXPECT_EQ(d.iterations_since_retrain(), 1);
  EXPECT_EQ(d.reference_score(), 1.25);
  RetrainController fresh(o);
  d.restore(fresh.state());
  EXPECT_FALSE(d.reference_score().has_value());
  EXPECT_THROW(d.restore(nlohmann::json{{"version", 2}}), core::InputError);
  EXPECT_THROW(d.restore(nlohmann::json{
                   {"version", 1}, {"iterations_since_retrain", -1}, {"reference_score", nullptr}}),
               core::InputError);
  o.max_interval = 0;
  EXPECT_THROW(RetrainController{o}, core::InputError);
}

TEST(Retraining, FeatureMemoryKeepsAnchorRecentAndRandomMiddle) {
  auto rng = core::Rng::stream(42, "feature-memory", 7);
  // 1000 frames per block, 10000 max: max_blocks = 10, n_recent = 2, n_middle = 7.
  const auto keep = prune_feature_memory(30, 1000, 10000, rng);
  ASSERT_EQ(keep.size(), 10u);
  EXPECT_EQ(keep.front(), 0u);
  EXPECT_EQ(keep[8], 28u);
  EXPECT_EQ(keep[9], 29u);
  EXPECT_TRUE(std::is_sorted(keep.begin(), keep.end()));
  EXPECT_EQ(std::set<std::size_t>(keep.begin(), keep.end()).size(), 10u);
  for (std::size_t k = 1; k < 8; ++k) EXPECT_TRUE(keep[k] >= 1 && keep[k] < 28);
  auto again = core::Rng::stream(42, "feature-memory", 7);
  EXPECT_EQ(prune_feature_memory(30, 1000, 10000, again), keep);  // same stream, same blocks
  // At most max_blocks: everything; the floor of 5 blocks applies to tiny budgets.
  auto r2 = core::Rng::stream(1, "feature-memory");
  EXPECT_EQ(prune_feature_memory(4, 1000, 10000, r2).size(), 4u);
  EXPECT_EQ(prune_feature_memory(9, 1000, 10, r2).size(), 5u);
  EXPECT_THROW(prune_feature_memory(9, 0, 10, r2), core::InputError);
}

}  // namespace
}  // namespace trails::analysis
