// One conformance suite run for every local executor (serial, thread pools of 1, 2, 4 slots with
// tight and loose max_in_flight bounds, make_local_executor), batch half: every task yields
// exactly one result, on the calling thread; run_ordered sorts by task_id;
// run_in_order hands results on in task order as they complete; engine exceptions
// become Failed results; instances are created once and stay warm; results are bitwise identical
// to the serial reference; a throwing callback propagates cleanly. The streaming half (submit /
// next_completed, the bound, slots, shutdown) is executor_streaming_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "executor_kinds.h"
#include "trails/core/error.h"
#include "trails/core/seeds.h"
#include "trails/engines/builtin/builtin_engine.h"
#include "trails/exec/executor.h"

namespace trails::exec {
namespace {

using engines::SegmentResult;
using engines::SegmentTask;

using testing::all_executor_kinds;
using testing::ExecutorKind;
using testing::numbered_tasks;
using testing::ok_result;
using testing::ScriptedEngine;

class ExecutorConformance : public ::testing::TestWithParam<ExecutorKind> {};

INSTANTIATE_TEST_SUITE_P(Local, ExecutorConformance, ::testing::ValuesIn(all_executor_kinds()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_P(ExecutorConformance, EveryTaskYieldsOneResultOnTheCallingThread) {
  ScriptedEngine engine([](const SegmentTask& task) {
    // Later tasks finish first, so completion order differs from task order in a pool.
    std::this_thread::sleep_for(std::chrono::microseconds(200 * (20 - task.task_id)));
    return ok_result(task);
  });
  auto executor = GetParam().make(engine);
  EXPECT_EQ(executor->workers(), GetParam().slots);
  const auto caller = std::this_thread::get_id();
  std::multiset<std::int64_t> seen;
  executor->run_batch(numbered_tasks(20), [&](SegmentResult&& r) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    EXPECT_TRUE(r.ok());
    seen.insert(r.task_id);
  });
  ASSERT_EQ(seen.size(), 20u);
  for (std::int64_t id = 0; id < 20; ++id) EXPECT_EQ(seen.count(id), 1u) << id;
}

TEST_P(ExecutorConformance, RunOrderedSortsByTaskId) {
  ScriptedEngine engine([](const SegmentTask& task) {
    std::this_thread::sleep_for(std::chrono::microseconds(100 * (task.task_id % 7)));
    return ok_result(task);
  });
  auto executor = GetParam().make(engine);
  std::vector<SegmentTask> tasks = numbered_tasks(25);
  std::reverse(tasks.begin(), tasks.end());  // submission order is not task order either
  const std::vector<SegmentResult> results = run_ordered(*executor, tasks);
  ASSERT_EQ(results.size(), 25u);
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].task_id, static_cast<std::int64_t>(i));
    EXPECT_EQ(results[i].final_state.positions[0], 100.0 + static_cast<double>(i));
  }
}

TEST_P(ExecutorConformance, RunInOrderStreamsInTaskOrder) {
  // Later tasks finish first in a pool: each result must wait for the tasks before it, and is
  // handed on once, in task order, with what run_in_order returns.
  std::atomic<int> completed{0};
  ScriptedEngine engine([&](const SegmentTask& task) {
    std::this_thread::sleep_for(std::chrono::microseconds(200 * (16 - task.task_id)));
    auto r = ok_result(task);
    ++completed;
    return r;
  });
  auto executor = GetParam().make(engine);
  std::vector<SegmentTask> tasks = numbered_tasks(16);
  std::reverse(tasks.begin(), tasks.end());
  const auto caller = std::this_thread::get_id();
  std::vector<std::int64_t> order;
  std::vector<double> handed;
  const auto results = run_in_order(*executor, tasks, [&](const SegmentResult& r) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    EXPECT_GE(completed.load(), static_cast<int>(r.task_id) + 1) << "before its predecessors";
    order.push_back(r.task_id);
    handed.push_back(r.final_state.positions[0]);
  });
  ASSERT_EQ(results.size(), 16u);
  ASSERT_EQ(order.size(), 16u);
  for (std::size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(order[i], static_cast<std::int64_t>(i));
    EXPECT_EQ(results[i].task_id, static_cast<std::int64_t>(i));
    EXPECT_EQ(handed[i], results[i].final_state.positions[0]);
  }
  // Ids need not start at 0 or be contiguous; duplicates are a caller's bug.
  std::vector<SegmentTask> sparse = numbered_tasks(3);
  for (auto& t : sparse) t.task_id = 10 * t.task_id + 5;
  order.clear();
  (void)run_in_order(*executor, sparse,
                     [&](const SegmentResult& r) { order.push_back(r.task_id); });
  EXPECT_EQ(order, (std::vector<std::int64_t>{5, 15, 25}));
  sparse[2].task_id = 5;
  EXPECT_THROW((void)run_in_order(*executor, sparse, {}), core::InternalError);
}

TEST_P(ExecutorConformance, EngineExceptionsBecomeFailedResults) {
  ScriptedEngine engine([](const SegmentTask& task) -> SegmentResult {
    if (task.walker % 3 == 0)
      throw std::runtime_error("boom in walker " + std::to_string(task.walker));
    if (task.walker == 4) throw core::EngineError("engine lost its GPU");
    if (task.walker == 5) throw 42;
    return ok_result(task);
  });
  auto executor = GetParam().make(engine);
  const std::vector<SegmentResult> results = run_ordered(*executor, numbered_tasks(9));
  ASSERT_EQ(results.size(), 9u);
  for (const SegmentResult& r : results) {
    if (r.task_id % 3 == 0) {
      EXPECT_FALSE(r.ok());
      EXPECT_NE(r.error.find("boom in walker " + std::to_string(r.task_id)), std::string::npos)
          << r.error;
      EXPECT_NE(r.error.find("walker " + std::to_string(r.task_id) + " of iteration 0"),
                std::string::npos)
          << r.error;
    } else if (r.task_id == 4) {
      EXPECT_NE(r.error.find("engine lost its GPU"), std::string::npos) << r.error;
    } else if (r.task_id == 5) {
      EXPECT_NE(r.error.find("unknown exception"), std::string::npos) << r.error;
    } else {
      EXPECT_TRUE(r.ok()) << r.task_id;
    }
  }
}

TEST_P(ExecutorConformance, InstancesAreCreatedOnceAndReusedAcrossBatches) {
  ScriptedEngine engine(ok_result);
  auto executor = GetParam().make(engine);
  for (int batch = 0; batch < 3; ++batch) {
    EXPECT_EQ(run_ordered(*executor, numbered_tasks(10)).size(), 10u);
  }
  EXPECT_EQ(engine.instances_made.load(), GetParam().slots);
}

TEST_P(ExecutorConformance, EmptyBatchReturnsAtOnce) {
  ScriptedEngine engine(ok_result);
  auto executor = GetParam().make(engine);
  int calls = 0;
  executor->run_batch({}, [&](SegmentResult&&) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST_P(ExecutorConformance, ThrowingCallbackPropagatesAndExecutorStaysUsable) {
  ScriptedEngine engine(ok_result);
  auto executor = GetParam().make(engine);
  int calls = 0;
  EXPECT_THROW(executor->run_batch(numbered_tasks(12),
                                   [&](SegmentResult&&) {
                                     if (++calls == 2) throw std::logic_error("driver bug");
                                   }),
               std::logic_error);
  EXPECT_EQ(calls, 2);  // no callbacks after the failing one
  EXPECT_EQ(run_ordered(*executor, numbered_tasks(6)).size(), 6u);
}

// The determinism contract end to end: the same 32 built-in walkers give bitwise the same
// frames and end states on every executor, in task order.
TEST_P(ExecutorConformance, BuiltinBatchIsBitwiseEqualToSerial) {
  config::BuiltinEngineConfig c;
  c.potential = config::Potential::MullerBrown;
  c.integrator = config::Integrator::Langevin;
  c.dt = 1e-4;
  engines::builtin::BuiltinEngine engine(c);
  std::vector<SegmentTask> tasks;
  for (int w = 0; w < 32; ++w) {
    SegmentTask t;
    t.task_id = w;
    t.walker = w;
    t.start = engine.default_start();
    t.steps = 200 + 10 * w;  // uneven lengths so completion order scrambles
    t.stride = 10;
    t.seed = core::walker_seed(42, 0, static_cast<std::uint64_t>(w));
    tasks.push_back(t);
  }
  auto reference = make_serial_executor(engine);
  const auto expected = run_ordered(*reference, tasks);
  auto executor = GetParam().make(engine);
  for (int batch = 0; batch < 2; ++batch) {  // the second batch runs on warm instances
    const auto actual = run_ordered(*executor, tasks);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
      ASSERT_TRUE(actual[i].ok()) << actual[i].error;
      EXPECT_EQ(actual[i].task_id, expected[i].task_id);
      EXPECT_EQ(actual[i].frames, expected[i].frames) << "task " << i;
      EXPECT_EQ(actual[i].final_state.positions, expected[i].final_state.positions);
      EXPECT_EQ(actual[i].final_state.velocities, expected[i].final_state.velocities);
    }
  }
  // Different walkers really are different.
  EXPECT_NE(expected[0].final_state.positions, expected[1].final_state.positions);
}

TEST(ThreadPoolExecutor, RunsSegmentsConcurrently) {
  // Each run waits (up to 10 s) until two runs are in flight at once; a pool of 2 releases them
  // immediately, and the flag records that it happened.
  std::mutex mutex;
  std::condition_variable changed;
  int in_flight = 0;
  int peak = 0;  // not in_flight itself: the first run out would strand the other
  std::atomic<bool> overlapped{false};
  ScriptedEngine engine([&](const SegmentTask& task) {
    std::unique_lock lock(mutex);
    peak = std::max(peak, ++in_flight);
    changed.notify_all();
    if (changed.wait_for(lock, std::chrono::seconds(10), [&] { return peak >= 2; })) {
      overlapped = true;
    }
    --in_flight;
    return ok_result(task);
  });
  auto executor = make_thread_pool_executor(engine, 2);
  EXPECT_EQ(run_ordered(*executor, numbered_tasks(2)).size(), 2u);
  EXPECT_TRUE(overlapped.load());
}

TEST(ThreadPoolExecutor, RejectsNonPositiveWorkerCounts) {
  ScriptedEngine engine(ok_result);
  EXPECT_THROW(make_thread_pool_executor(engine, 0), core::ConfigError);
  EXPECT_EQ(make_local_executor(engine, 0)->workers(), 1);
}

TEST(RunGuarded, RestoresTheTaskIdAndCatchesEverything) {
  ScriptedEngine engine([](const SegmentTask&) {
    SegmentResult r;  // an engine that forgot to set task_id
    r.status = engines::SegmentStatus::Ok;
    return r;
  });
  auto instance = engine.make_instance();
  SegmentTask task;
  task.task_id = 17;
  EXPECT_EQ(run_guarded(*instance, task).task_id, 17);
}

}  // namespace
}  // namespace trails::exec
