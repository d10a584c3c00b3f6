// execution.workers_per_device: auto (docs/execution.md, "Walkers per device from
// measurement"): the decision on recorded measurements (monotone, saturating, noisy, a k that
// fails with a resource error), the resource-error classifier, and the tuning executor on the
// built-in engine over device slots: every result bitwise the serial one, the trials doubling k,
// the decision the pure function's, and walkers that hit a device's memory limit run again.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include "support/builtin_walkers.h"
#include "trails/core/error.h"
#include "trails/engines/builtin/builtin_engine.h"
#include "trails/exec/local/packing_tuner.h"
#include "trails/exec/local/packing_tuning.h"

namespace trails::exec {
namespace {

std::vector<PackingTrial> measured(std::initializer_list<double> steps_per_s) {
  std::vector<PackingTrial> trials;
  int k = 1;
  for (double s : steps_per_s) {
    trials.push_back({k, s, 4 * k, false, ""});
    k *= 2;
  }
  return trials;
}

TEST(PackingDecision, StartsAtOneAndDoublesWhileThroughputGrows) {
  const PackingRule rule;  // max 8, 10 %
  const PackingDecision none = decide_packing({}, rule);
  EXPECT_FALSE(none.done);
  EXPECT_EQ(none.next, 1);
  const PackingDecision one = decide_packing(measured({100}), rule);
  EXPECT_FALSE(one.done);
  EXPECT_EQ(one.chosen, 1);
  EXPECT_EQ(one.next, 2);
  const PackingDecision three = decide_packing(measured({100, 200, 400}), rule);
  EXPECT_FALSE(three.done);
  EXPECT_EQ(three.next, 8);
  // Monotone to the limit: 8 is kept without trying 16.
  const PackingDecision all = decide_packing(measured({100, 200, 400, 800}), rule);
  EXPECT_TRUE(all.done);
  EXPECT_EQ(all.chosen, 8);
  EXPECT_EQ(all.next, 8);
  EXPECT_NE(all.reason.find("most tried"), std::string::npos) << all.reason;
  PackingRule four = rule;
  four.max_workers_per_device = 4;
  EXPECT_EQ(decide_packing(measured({100, 200, 400}), four).chosen, 4);
  EXPECT_TRUE(decide_packing(measured({100, 200, 400}), four).done);
}

TEST(PackingDecision, SaturatingKeepsTheLastKThatGainedMoreThanTheMargin) {
  const PackingDecision d = decide_packing(measured({100, 190, 260, 270}), PackingRule{});
  EXPECT_TRUE(d.done);
  EXPECT_EQ(d.chosen, 4);
  EXPECT_NE(d.reason.find("not more than 10 %"), std::string::npos) << d.reason;
  // Exactly the margin is not enough; a hair above it is.
  EXPECT_EQ(decide_packing(measured({100, 110}), PackingRule{}).chosen, 1);
  EXPECT_TRUE(decide_packing(measured({100, 110}), PackingRule{}).done);
  EXPECT_FALSE(decide_packing(measured({100, 110.5}), PackingRule{}).done);
}

TEST(PackingDecision, NoisyDipStopsTheSearchAtTheBestSoFar) {
  // 4 measured within noise of 2: the search stops there, even though 8 might have won.
  const PackingDecision d = decide_packing(measured({100, 180, 185, 400}), PackingRule{});
  EXPECT_TRUE(d.done);
  EXPECT_EQ(d.chosen, 2);
  // A dip below an earlier k keeps the earlier k.
  EXPECT_EQ(decide_packing(measured({100, 90}), PackingRule{}).chosen, 1);
}

TEST(PackingDecision, ResourceErrorEndsTheSearchAtTheBestThatRan) {
  auto trials = measured({100, 150});
  trials.push_back({4, 0.0, 0, true, "Error creating array posq: clCreateBuffer (-61)"});
  const PackingDecision d = decide_packing(trials, PackingRule{});
  EXPECT_TRUE(d.done);
  EXPECT_EQ(d.chosen, 2);
  EXPECT_NE(d.reason.find("4 walkers per device failed: Error creating array posq"),
            std::string::npos)
      << d.reason;
  const PackingDecision first = decide_packing({{1, 0.0, 0, true, "out of memory"}}, {});
  EXPECT_TRUE(first.done);
  EXPECT_EQ(first.chosen, 1);
  EXPECT_THROW(decide_packing({{2, 1.0, 1, false, ""}}, {}), core::InternalError);
}

TEST(PackingDecision, ResourceErrorsAreRecognised) {
  EXPECT_TRUE(is_resource_error("OpenMM: Error creating array posq: clCreateBuffer (-61)"));
  EXPECT_TRUE(is_resource_error("Error uploading array: clEnqueueWriteBuffer (-5)"));
  EXPECT_TRUE(is_resource_error("Error initializing CUDA: CUDA_ERROR_OUT_OF_MEMORY (2)"));
  EXPECT_TRUE(is_resource_error("std::bad_alloc"));
  EXPECT_FALSE(is_resource_error("OpenMM: coordinates became non-finite by step 50"));
  EXPECT_FALSE(is_resource_error("Error invoking kernel: clFinish (-36)"));
  EXPECT_FALSE(is_resource_error("walker failed (-5)"));
}

TEST(PackingDecision, TrialsRoundTripThroughJson) {
  const PackingTrial t{4, 1234.5, 12, true, "CUDA_ERROR_OUT_OF_MEMORY"};
  const PackingTrial back = trial_from_json(to_json(t));
  EXPECT_EQ(back.workers_per_device, 4);
  EXPECT_EQ(back.steps_per_s, 1234.5);
  EXPECT_EQ(back.walkers, 12);
  EXPECT_TRUE(back.failed);
  EXPECT_EQ(back.failure, t.failure);
}

config::BuiltinEngineConfig sleepy(double cost_ms) {
  config::BuiltinEngineConfig c = test_support::builtin_config();
  c.synthetic_cost_ms = cost_ms;  // a device-bound walker: k of them overlap
  return c;
}

ExecutionOptions two_devices(std::size_t in_flight) {
  ExecutionOptions o;
  o.devices = {0, 1};
  o.max_in_flight = in_flight;
  return o;
}

// Results bitwise those of the serial reference, over several batches (iterations), and a
// search that follows decide_packing on what it measured.
TEST(PackingTuner, ResultsAreTheSerialOnesWhateverKItTries) {
  const engines::builtin::BuiltinEngine engine(sleepy(2.0));
  auto serial = make_serial_executor(engine);
  auto tuner = make_packing_tuner(engine, resolve_devices(two_devices(64), {}), two_devices(64),
                                  PackingTunerOptions{});
  for (int iteration = 0; iteration < 3; ++iteration) {
    const auto tasks = test_support::walkers(engine, 40, iteration);
    const auto expected = run_ordered(*serial, tasks);
    const auto actual = run_ordered(*tuner, tasks);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i)
      test_support::expect_same(actual[i], expected[i]);
  }
  const nlohmann::json record = tuner->record();
  std::vector<PackingTrial> trials;
  for (const auto& t : record.at("trials")) trials.push_back(trial_from_json(t));
  ASSERT_GE(trials.size(), 2u) << record.dump();  // 120 walkers cover k = 1 and 2 at least
  for (const PackingTrial& t : trials) {
    EXPECT_FALSE(t.failed);
    EXPECT_GT(t.walkers, 0);
    EXPECT_GT(t.steps_per_s, 0.0);
  }
  const PackingDecision d = decide_packing(trials, PackingRule{});
  EXPECT_EQ(record.at("done").get<bool>(), d.done);
  EXPECT_EQ(record.at("chosen").get<int>(), d.chosen);
  EXPECT_EQ(tuner->workers_per_device(), d.done ? d.chosen : d.next);
}

// A device that holds at most 2 walkers' state: a third live instance on it fails its walkers
// with CUDA's out-of-memory error, as a GPU would.
class TwoPerDevice final : public engines::Engine {
 public:
  explicit TwoPerDevice(const engines::Engine& inner) : inner_(inner) {}
  std::string name() const override { return inner_.name(); }
  using Engine::make_instance;
  std::unique_ptr<engines::EngineInstance> make_instance(const engines::Slot& slot) const override {
    return std::make_unique<Instance>(inner_.make_instance(slot), live_[slot.device.value_or(0)]);
  }
  engines::Configuration default_start() const override { return inner_.default_start(); }
  const engines::EngineSystem& system() const override { return inner_.system(); }
  engines::EngineCapabilities capabilities() const override { return inner_.capabilities(); }
  std::string describe() const override { return inner_.describe(); }

 private:
  class Instance final : public engines::EngineInstance {
   public:
    Instance(std::unique_ptr<engines::EngineInstance> inner, std::atomic<int>& live)
        : inner_(std::move(inner)), live_(live) {
      ++live_;
    }
    ~Instance() override { --live_; }
    engines::SegmentResult run(const engines::SegmentTask& task) override {
      if (live_ > 2) {
        engines::SegmentResult r;
        r.task_id = task.task_id;
        r.error = "OpenMM: Error creating context: CUDA_ERROR_OUT_OF_MEMORY (2)";
        return r;
      }
      return inner_->run(task);
    }

   private:
    std::unique_ptr<engines::EngineInstance> inner_;
    std::atomic<int>& live_;
  };
  const engines::Engine& inner_;
  mutable std::map<int, std::atomic<int>> live_;
};

TEST(PackingTuner, AKThatRunsOutOfDeviceMemoryIsRejectedAndItsWalkersRunAgain) {
  // 20 ms sleeps: k walkers per device overlap, so 2 beats 1 by far more than 10 % and the
  // search goes on to 4, where the device is full.
  const engines::builtin::BuiltinEngine builtin(sleepy(20.0));
  const TwoPerDevice engine(builtin);
  auto serial = make_serial_executor(builtin);
  PackingTunerOptions tuning;
  tuning.measured_per_slot = 1;
  auto tuner =
      make_packing_tuner(engine, resolve_devices(two_devices(64), {}), two_devices(64), tuning);
  const auto tasks = test_support::walkers(builtin, 40, 0);
  const auto expected = run_ordered(*serial, tasks);
  const auto actual = run_ordered(*tuner, tasks);
  for (std::size_t i = 0; i < actual.size(); ++i) test_support::expect_same(actual[i], expected[i]);
  const nlohmann::json record = tuner->record();
  const auto& trials = record.at("trials");
  ASSERT_EQ(trials.size(), 3u) << record.dump();
  EXPECT_TRUE(trials[2].at("failed").get<bool>());
  EXPECT_NE(trials[2].at("failure").get<std::string>().find("CUDA_ERROR_OUT_OF_MEMORY"),
            std::string::npos);
  EXPECT_TRUE(record.at("done").get<bool>());
  EXPECT_EQ(record.at("chosen").get<int>(), 2) << record.dump();
  EXPECT_EQ(tuner->workers_per_device(), 2);
}

TEST(PackingTuner, EarlierTrialsOfAResumedRunStandAndNeedsDevices) {
  const engines::builtin::BuiltinEngine engine(test_support::builtin_config());
  PackingTunerOptions tuning;
  tuning.earlier = measured({100, 200, 210});
  auto tuner =
      make_packing_tuner(engine, resolve_devices(two_devices(8), {}), two_devices(8), tuning);
  EXPECT_EQ(tuner->workers_per_device(), 2);
  EXPECT_TRUE(tuner->record().at("done").get<bool>());
  EXPECT_EQ(tuner->slots().size(), 4u);
  ExecutionOptions none;
  EXPECT_THROW(make_packing_tuner(engine, resolve_devices(none, {}), none, {}), core::ConfigError);
}

}  // namespace
}  // namespace trails::exec
