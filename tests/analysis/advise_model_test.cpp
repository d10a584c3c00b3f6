// The arithmetic of `trails advise` (advise_model.h, docs/advise.md) on hand-made timing tables
// with known answers: the breakdown adds up, the fitted model gives the measured iteration
// back, and each recommendation appears exactly when the model prices it at 10 % or more.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "trails/analysis/advise_model.h"

namespace trails::analysis {
namespace {

// `n` iterations of `walkers` identical walkers (start-up s, integration g) of `steps` steps,
// each with the runner time that `rounds` rounds of them take.
std::vector<IterationTiming> table(int n, int walkers, std::int64_t steps, double s, double g,
                                   int rounds, double frame_s = 0.0, double other_s = 0.0) {
  std::vector<IterationTiming> out;
  for (int i = 0; i < n; ++i) {
    IterationTiming it;
    it.iteration = i;
    it.steps = steps;
    it.runner_s = rounds * (s + g);
    it.frame_s = frame_s;
    it.other_s = other_s;
    it.walkers.assign(static_cast<std::size_t>(walkers), WalkerTiming{s, g, true});
    out.push_back(it);
  }
  return out;
}

ExecutionSetup threads(int slots, std::int64_t stride = 10) {
  ExecutionSetup x;
  x.slots = slots;
  x.stride = stride;
  return x;
}

const Recommendation* find(const Advice& a, const std::string& key) {
  const auto it = std::find_if(a.recommendations.begin(), a.recommendations.end(),
                               [&](const Recommendation& r) { return r.key == key; });
  return it == a.recommendations.end() ? nullptr : &*it;
}

bool remarked(const Advice& a, const std::string& key) {
  return std::any_of(a.not_recommended.begin(), a.not_recommended.end(),
                     [&](const Remark& r) { return r.key == key; });
}

TEST(AdviseModel, BreakdownAddsUpToTheWallTime) {
  IterationTiming it;
  it.runner_s = 3.0;
  it.frame_s = 0.5;
  it.other_s = 0.25;
  it.walkers = {{0.5, 2.0, true}, {0.5, 1.5, true}, {0.25, 1.0, false}};  // 5.75 s busy
  const auto b = break_down(it, 2);
  EXPECT_DOUBLE_EQ(b.startup_s, 0.625);
  EXPECT_DOUBLE_EQ(b.integrate_s, 2.25);
  EXPECT_DOUBLE_EQ(b.idle_s, 3.0 - 2.875);
  EXPECT_DOUBLE_EQ(b.startup_s + b.integrate_s + b.idle_s, it.runner_s);
  EXPECT_DOUBLE_EQ(b.wall_s, 3.75);
  it.other_s.reset();
  const auto unknown = break_down(it, 2);
  EXPECT_DOUBLE_EQ(unknown.wall_s, 3.5);
  const auto t = total_of({b, unknown});
  EXPECT_DOUBLE_EQ(t.wall_s, 7.25);
  EXPECT_EQ(t.walkers, 6);
  ASSERT_TRUE(t.other_s.has_value());
  EXPECT_DOUBLE_EQ(*t.other_s, 0.25);  // the known one only
}

TEST(AdviseModel, FitGivesTheMeasuredIterationBack) {
  auto its = table(3, 10, 500, 0.02, 0.5, 3, 0.04, 0.01);
  its[1].runner_s += 0.3;  // imbalance: lands in d
  const auto m = fit_model(its, 4);
  EXPECT_DOUBLE_EQ(m.step_s, 0.5 / 500);
  EXPECT_DOUBLE_EQ(m.startup_s, 0.02);
  EXPECT_NEAR(m.dispatch_s, 0.1, 1e-12);
  const double measured = 3 * 0.52 + 0.1 + 0.04 + 0.01;
  EXPECT_NEAR(model_iteration_s(m, 10, 500, 4), measured, 1e-12);
  EXPECT_NEAR(model_steps_per_s(m, 10, 500, 4), 5000.0 / measured, 1e-9);
}

TEST(AdviseModel, MedianStartupIgnoresTheFirstWalkerOfEachSlot) {
  auto its = table(2, 8, 1000, 0.01, 1.0, 4);
  its[0].walkers[0].startup_s = 5.0;  // the instance was built here
  its[0].walkers[1].startup_s = 5.0;
  const auto m = fit_model(its, 2);
  EXPECT_DOUBLE_EQ(m.startup_s, 0.01);
  EXPECT_NEAR(m.mean_startup_s, (14 * 0.01 + 10.0) / 16, 1e-12);
}

TEST(AdviseModel, FitsOnlyTheTrailingIterationsWithTheLastSettings) {
  auto its = table(5, 4, 100, 0.01, 0.1, 1);
  its[0].steps = its[1].steps = 50;  // spawning.step changed on resume before iteration 2
  its[4].walkers.pop_back();         // and spawning.walker before iteration 4
  auto m = fit_model(its, 4);
  EXPECT_EQ(m.first_iteration, 4);
  EXPECT_EQ(m.walkers, 3);
  its.pop_back();
  m = fit_model(its, 4);
  EXPECT_EQ(m.first_iteration, 2);
  EXPECT_EQ(m.last_iteration, 3);
  EXPECT_EQ(m.steps, 100);
}

TEST(AdviseModel, HalfStartupRecommendsLongerWalkersWithTheirGain) {
  // s = 0.1 s, 1000 steps in 0.1 s: start-up is 50 %. 10 % needs 9 × s / τ = 9000 steps;
  // one round of 4 walkers: now 4000 steps in 0.2 s, after 36000 steps in 1.0 s: 1.8×.
  const auto a = advise(table(3, 4, 1000, 0.1, 0.1, 1), threads(4));
  EXPECT_DOUBLE_EQ(startup_fraction(a.fit, 1000), 0.5);
  const auto* r = find(a, "spawning.step");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->current, 1000);
  EXPECT_EQ(r->value, 9000);
  EXPECT_NEAR(r->speedup, 1.8, 1e-9);
  EXPECT_NE(r->reason.find("50.0 %"), std::string::npos) << r->reason;
  EXPECT_NE(r->arithmetic.find("9000 × "), std::string::npos) << r->arithmetic;
  EXPECT_NEAR(startup_fraction(a.fit, r->value), 0.1, 1e-12);
  EXPECT_TRUE(remarked(a, "execution.persistent_workers"));
  EXPECT_EQ(a.recommendations.size(), 1u);
}

TEST(AdviseModel, WalkerLengthIsAMultipleOfTheStrideWithTwoSignificantDigits) {
  // 9 × 0.1 / 3.7e-5 = 24324.3 steps -> 2433 strides of 10 -> 2500 strides.
  const auto a = advise(table(1, 4, 1000, 0.1, 0.037, 1), threads(4));
  const auto* r = find(a, "spawning.step");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->value, 25000);
  const auto b = advise(table(1, 4, 1000, 0.1, 0.037, 1), threads(4, 7));
  ASSERT_NE(find(b, "spawning.step"), nullptr);
  EXPECT_EQ(find(b, "spawning.step")->value % 7, 0);
}

TEST(AdviseModel, WalkerLengthStaysWithinWhatTheLoaderAccepts) {
  const auto a = advise(table(1, 2, 10, 100.0, 1e-6, 1), threads(2));
  const auto* r = find(a, "spawning.step");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->value, 2147483640);  // the largest multiple of 10 that is an int
  EXPECT_NE(r->note.find("capped"), std::string::npos) << r->note;
}

TEST(AdviseModel, BalancedRunGetsNoRecommendation) {
  // 1 ms of start-up per 1 s walker, 8 walkers in 2 full rounds of 4, small frame work.
  const auto a = advise(table(4, 8, 10000, 0.001, 1.0, 2, 0.01, 0.005), threads(4));
  EXPECT_TRUE(a.recommendations.empty());
  EXPECT_FALSE(remarked(a, "execution.persistent_workers"));
  EXPECT_TRUE(remarked(a, "execution.walkers_per_task"));  // always explained, never advised
  EXPECT_TRUE(a.warnings.empty());
}

TEST(AdviseModel, SmallGainFromWalkerLengthIsARemarkNotARecommendation) {
  // Start-up 12 %: reaching 10 % gains about 2 %, below the 10 % threshold.
  const auto a = advise(table(2, 4, 1000, 0.12, 0.88, 1), threads(4));
  EXPECT_EQ(find(a, "spawning.step"), nullptr);
  EXPECT_TRUE(remarked(a, "spawning.step"));
}

TEST(AdviseModel, PersistentWorkersAreNeverAdvisedForStartup) {
  auto x = threads(4);
  x.persistent_workers = true;
  const auto a = advise(table(2, 4, 1000, 0.1, 0.1, 1), x);
  EXPECT_FALSE(remarked(a, "execution.persistent_workers"));
  EXPECT_NE(find(a, "spawning.step"), nullptr);
}

TEST(AdviseModel, PartlyEmptyLastRoundRecommendsMoreWalkers) {
  // 5 walkers on 4 slots: 2 rounds of 1 s. 8 walkers take the same 2 s: 1.6× the MD per second.
  const auto a = advise(table(2, 5, 1000, 0.0, 1.0, 2), threads(4));
  const auto* r = find(a, "spawning.walker");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->value, 8);
  EXPECT_NEAR(r->speedup, 1.6, 1e-9);
}

TEST(AdviseModel, QueuedWalkersOnDevicesRecommendPacking) {
  // 8 walkers on 2 devices × 1: 4 rounds of 1 s; 2 per device make 2 rounds: at most 2×.
  ExecutionSetup x = threads(2);
  x.devices = 2;
  x.engine_uses_devices = true;
  x.n_atoms = 2000;
  const auto a = advise(table(2, 8, 1000, 0.0, 1.0, 4), x);
  const auto* r = find(a, "execution.workers_per_device");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->value, 2);
  EXPECT_EQ(r->current, 1);
  EXPECT_NEAR(r->speedup, 2.0, 1e-9);
  EXPECT_NE(r->note.find("MPS"), std::string::npos) << r->note;
  x.mps_daemon = true;
  EXPECT_EQ(find(advise(table(2, 8, 1000, 0.0, 1.0, 4), x), r->key)->note.find("MPS"),
            std::string::npos);
}

TEST(AdviseModel, NoPackingForLargeSystemsOrWithoutDevicesOrQueue) {
  ExecutionSetup x = threads(2);
  x.devices = 2;
  x.engine_uses_devices = true;
  x.n_atoms = 80000;
  auto a = advise(table(2, 8, 1000, 0.0, 1.0, 4), x);
  EXPECT_EQ(find(a, "execution.workers_per_device"), nullptr);
  EXPECT_TRUE(remarked(a, "execution.workers_per_device"));
  a = advise(table(2, 8, 1000, 0.0, 1.0, 4), threads(2));  // no device pool: not considered
  EXPECT_EQ(find(a, "execution.workers_per_device"), nullptr);
  EXPECT_FALSE(remarked(a, "execution.workers_per_device"));
  x.n_atoms = 2000;
  a = advise(table(2, 2, 1000, 0.0, 1.0, 1), x);  // every walker already runs at once
  EXPECT_EQ(find(a, "execution.workers_per_device"), nullptr);
  EXPECT_TRUE(remarked(a, "execution.workers_per_device"));
}

TEST(AdviseModel, BusierThanTheRecordedSlotsWarns) {
  // 4 walkers of 1 s finished in 1 s on what the ledger says is 2 slots.
  const auto a = advise(table(2, 4, 1000, 0.0, 1.0, 1), threads(2));
  ASSERT_EQ(a.warnings.size(), 1u);
  EXPECT_NE(a.warnings[0].find("resumed"), std::string::npos) << a.warnings[0];
}

TEST(AdviseModel, RecommendationsComeBestFirst) {
  // Start-up 50 % (step: 1.8× or more) and a last round with 3 of 4 slots idle.
  const auto a = advise(table(2, 5, 1000, 0.1, 0.1, 2), threads(4));
  ASSERT_EQ(a.recommendations.size(), 2u);
  EXPECT_GE(a.recommendations[0].speedup, a.recommendations[1].speedup);
}

TEST(AdviseModel, DurationsReadInTheirUnit) {
  EXPECT_EQ(format_duration(0.0), "0 s");
  EXPECT_EQ(format_duration(1.5), "1.5 s");
  EXPECT_EQ(format_duration(0.0301), "30.1 ms");
  EXPECT_EQ(format_duration(1.2e-7), "120 ns");
  EXPECT_EQ(format_duration(-0.002), "-2 ms");
}

}  // namespace
}  // namespace trails::analysis

namespace trails::analysis {
namespace {

// A SLURM run: 16 walkers of 0.2 s in 16 array tasks, 2 at once, each task paying 0.3 s of
// launch: 8 rounds × 0.5 s = 4.0 s. Packs of 8 take 1 round × (0.3 + 8 × 0.2) = 1.9 s.
std::vector<IterationTiming> array_table() {
  std::vector<IterationTiming> t = table(3, 16, 1000, 0.0, 0.2, 8);
  for (IterationTiming& it : t) it.runner_s = 8 * (0.3 + 0.2);
  return t;
}

ExecutionSetup slurm(std::optional<int> at_once) {
  ExecutionSetup x = threads(at_once.value_or(16));
  x.backend = "slurm";
  x.walkers_per_task = 1;
  x.tasks_in_flight = at_once;
  return x;
}

TEST(AdviseModel, ArrayLaunchesRecommendPackingWithItsGain) {
  const Advice a = advise(array_table(), slurm(2));
  const Recommendation* r = find(a, "execution.walkers_per_task");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->value, 8);
  EXPECT_EQ(r->current, 1);
  EXPECT_NEAR(r->speedup, 4.0 / 1.9, 1e-6);
  EXPECT_NE(r->reason.find("each slurm array task paid 300 ms of launch"), std::string::npos)
      << r->reason;
  EXPECT_NE(r->reason.find("2 launches per iteration instead of 16"), std::string::npos);
}

TEST(AdviseModel, ArrayTasksAllAtOnceGainNothingFromPackingAndSayWhichBackend) {
  const Advice a = advise(array_table(), slurm(std::nullopt));
  EXPECT_EQ(find(a, "execution.walkers_per_task"), nullptr);
  const auto it =
      std::find_if(a.not_recommended.begin(), a.not_recommended.end(),
                   [](const Remark& m) { return m.key == "execution.walkers_per_task"; });
  ASSERT_NE(it, a.not_recommended.end());
  EXPECT_NE(it->why.find("on the slurm backend"), std::string::npos) << it->why;
  EXPECT_EQ(it->why.find("local"), std::string::npos) << it->why;
}

}  // namespace
}  // namespace trails::analysis
