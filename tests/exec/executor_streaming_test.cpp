// Executor conformance, streaming half, over every executor of executor_kinds.h: results come
// back before all tasks are submitted; tasks are submitted while others run and a freed slot
// takes the next queued task without the driver; in_flight never exceeds max_in_flight; the
// executor owns its slots with one instance each; next_completed on an idle executor returns
// nothing; shutdown drops queued work, joins, and refuses further submits. Gated engines wait
// at most 10 s for a release, so a broken executor fails an assertion instead of hanging.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "executor_kinds.h"
#include "trails/core/error.h"
#include "trails/exec/executor.h"

namespace trails::exec {
namespace {

using engines::SegmentResult;
using engines::SegmentTask;
using testing::ExecutorKind;
using testing::numbered_tasks;
using testing::ok_result;
using testing::ScriptedEngine;

class ExecutorStreaming : public ::testing::TestWithParam<ExecutorKind> {};

INSTANTIATE_TEST_SUITE_P(Local, ExecutorStreaming,
                         ::testing::ValuesIn(testing::all_executor_kinds()),
                         [](const auto& info) { return std::string(info.param.name); });

// Task 0 blocks until open() (or 10 s); every other task finishes at once.
class Gate {
 public:
  SegmentResult run(const SegmentTask& task) {
    if (task.task_id == 0) {
      std::unique_lock lock(mutex_);
      if (!changed_.wait_for(lock, std::chrono::seconds(10), [this] { return open_; })) {
        timed_out_ = true;
      }
    }
    return ok_result(task);
  }
  void open() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    changed_.notify_all();
  }
  bool timed_out() {
    std::lock_guard lock(mutex_);
    return timed_out_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = false;
  bool timed_out_ = false;
};

TEST_P(ExecutorStreaming, ResultsArriveBeforeAllTasksAreSubmitted) {
  ScriptedEngine engine(ok_result);
  auto executor = GetParam().make(engine);
  const std::vector<SegmentTask> tasks = numbered_tasks(12);
  executor->submit(tasks[0]);
  const std::optional<SegmentResult> first = executor->next_completed();  // 11 still unsubmitted
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->task_id, 0);
  std::set<std::int64_t> seen{first->task_id};
  for (std::size_t i = 1; i < tasks.size(); ++i) {
    executor->submit(tasks[i]);
    EXPECT_LE(executor->in_flight(), executor->max_in_flight());
  }
  while (auto r = executor->next_completed()) EXPECT_TRUE(seen.insert(r->task_id).second);
  EXPECT_EQ(seen.size(), tasks.size());
  EXPECT_EQ(executor->in_flight(), 0u);
  EXPECT_EQ(executor->results_waiting(), 0u);
}

// The kinds that can run two tasks at once; the other kinds run one at a time by construction.
class ExecutorConcurrency : public ::testing::TestWithParam<ExecutorKind> {};

std::vector<ExecutorKind> concurrent_kinds() {
  std::vector<ExecutorKind> kinds;
  for (const ExecutorKind& k : testing::all_executor_kinds()) {
    if (k.concurrent()) kinds.push_back(k);
  }
  return kinds;
}

INSTANTIATE_TEST_SUITE_P(Local, ExecutorConcurrency, ::testing::ValuesIn(concurrent_kinds()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_P(ExecutorConcurrency, SubmitsWhileAnotherTaskRuns) {
  Gate gate;
  ScriptedEngine engine([&](const SegmentTask& t) { return gate.run(t); });
  auto executor = GetParam().make(engine);
  executor->submit(numbered_tasks(1)[0]);  // blocks in the engine until the gate opens
  executor->submit(numbered_tasks(2)[1]);
  const std::optional<SegmentResult> r = executor->next_completed();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->task_id, 1);              // finished while task 0 still runs
  EXPECT_EQ(executor->in_flight(), 1u);  // task 0
  gate.open();
  EXPECT_EQ(executor->next_completed()->task_id, 0);
  EXPECT_FALSE(executor->next_completed().has_value());
  EXPECT_FALSE(gate.timed_out());
}

TEST_P(ExecutorConcurrency, AFreedSlotTakesTheNextQueuedTask) {
  Gate gate;
  ScriptedEngine engine([&](const SegmentTask& t) { return gate.run(t); });
  auto executor = GetParam().make(engine);
  // As many tasks as the bound allows: task 0 holds one slot, the others queue behind the
  // remaining slots and run as those free up; nobody submits or takes a result in between.
  const int n = static_cast<int>(std::min<std::size_t>(GetParam().max_in_flight, 12));
  for (const SegmentTask& t : numbered_tasks(n)) executor->submit(t);
  std::set<std::int64_t> early;
  for (int i = 1; i < n; ++i) early.insert(executor->next_completed()->task_id);
  EXPECT_EQ(early.size(), static_cast<std::size_t>(n - 1));
  EXPECT_FALSE(early.contains(0));
  EXPECT_EQ(executor->in_flight(), 1u);
  gate.open();
  EXPECT_EQ(executor->next_completed()->task_id, 0);
  EXPECT_FALSE(gate.timed_out());
}

TEST_P(ExecutorStreaming, InFlightNeverExceedsTheBound) {
  std::mutex mutex;
  int running = 0;
  int peak = 0;
  ScriptedEngine engine([&](const SegmentTask& task) {
    {
      std::lock_guard lock(mutex);
      peak = std::max(peak, ++running);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    {
      std::lock_guard lock(mutex);
      --running;
    }
    return ok_result(task);
  });
  auto executor = GetParam().make(engine);
  EXPECT_EQ(executor->max_in_flight(), GetParam().max_in_flight);
  std::size_t received = 0;
  for (const SegmentTask& t : numbered_tasks(40)) {
    executor->submit(t);  // blocks while the bound is reached; never deadlocks a lone driver
    EXPECT_LE(executor->in_flight(), executor->max_in_flight());
  }
  while (executor->next_completed()) ++received;
  EXPECT_EQ(received, 40u);
  EXPECT_LE(peak, std::min<int>(GetParam().slots, static_cast<int>(GetParam().max_in_flight)));
}

TEST_P(ExecutorStreaming, OwnsItsSlotsWithOneInstanceEach) {
  ScriptedEngine engine(ok_result);
  auto executor = GetParam().make(engine);
  const std::vector<engines::Slot>& slots = executor->slots();
  ASSERT_EQ(static_cast<int>(slots.size()), GetParam().slots);
  for (std::size_t i = 0; i < slots.size(); ++i) EXPECT_EQ(slots[i].index, static_cast<int>(i));
  std::vector<engines::Slot> asked = engine.slots_seen();
  std::sort(asked.begin(), asked.end(), [](auto& a, auto& b) { return a.index < b.index; });
  EXPECT_EQ(asked, slots);  // make_instance(slot) once per slot, for exactly these slots
}

TEST_P(ExecutorStreaming, NextCompletedOnAnIdleExecutorReturnsNothing) {
  ScriptedEngine engine(ok_result);
  auto executor = GetParam().make(engine);
  EXPECT_FALSE(executor->next_completed().has_value());
  EXPECT_EQ(executor->in_flight(), 0u);
  run_ordered(*executor, numbered_tasks(3));
  EXPECT_FALSE(executor->next_completed().has_value());
}

TEST_P(ExecutorStreaming, ShutdownDropsQueuedWorkAndRefusesNewTasks) {
  ScriptedEngine engine([](const SegmentTask& task) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    return ok_result(task);
  });
  auto executor = GetParam().make(engine);
  const std::vector<SegmentTask> tasks = numbered_tasks(static_cast<int>(GetParam().max_in_flight));
  for (const SegmentTask& t : tasks) executor->submit(t);
  executor->shutdown();  // joins: running tasks finish, queued ones never start
  EXPECT_EQ(executor->in_flight(), 0u);
  EXPECT_FALSE(executor->next_completed().has_value());
  EXPECT_THROW(executor->submit(tasks[0]), core::InternalError);
  executor->shutdown();  // idempotent
}

TEST_P(ExecutorStreaming, DestroyingABusyExecutorJoinsCleanly) {
  ScriptedEngine engine([](const SegmentTask& task) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    return ok_result(task);
  });
  {
    auto executor = GetParam().make(engine);
    for (const SegmentTask& t : numbered_tasks(static_cast<int>(GetParam().max_in_flight))) {
      executor->submit(t);
    }
  }  // no results taken: the destructor must neither hang nor crash
  SUCCEED();
}

// One thread submits, another takes results (the contract allows one of each).
TEST(ThreadPoolExecutor, ProducerAndConsumerOnDifferentThreads) {
  ScriptedEngine engine(ok_result);
  auto executor = make_thread_pool_executor(engine, 3, 2);
  const std::vector<SegmentTask> tasks = numbered_tasks(60);
  std::set<std::int64_t> seen;
  std::thread consumer([&] {
    while (seen.size() < tasks.size()) {
      if (std::optional<SegmentResult> r = executor->next_completed()) seen.insert(r->task_id);
    }
  });
  for (const SegmentTask& t : tasks) executor->submit(t);
  consumer.join();
  EXPECT_EQ(seen.size(), tasks.size());
}

TEST(ThreadPoolExecutor, RunsOnTheSlotsItIsGiven) {
  ScriptedEngine engine(ok_result);
  const std::vector<engines::Slot> slots = {{0, 0, 0}, {1, 0, 1}, {2, 1, 0}, {3, 1, 1}};
  auto executor = make_thread_pool_executor(engine, slots);
  EXPECT_EQ(executor->slots(), slots);
  EXPECT_EQ(executor->max_in_flight(), 8u);
  std::vector<engines::Slot> asked = engine.slots_seen();
  std::sort(asked.begin(), asked.end(), [](auto& a, auto& b) { return a.index < b.index; });
  EXPECT_EQ(asked, slots);
  EXPECT_EQ(run_ordered(*executor, numbered_tasks(9)).size(), 9u);
  EXPECT_THROW(make_thread_pool_executor(engine, std::vector<engines::Slot>{{1, 0, 0}}),
               core::InternalError);
  EXPECT_THROW(make_thread_pool_executor(engine, std::vector<engines::Slot>{}), core::ConfigError);
}

TEST(RunBatch, RefusesAnExecutorWithResultsOfEarlierSubmits) {
  ScriptedEngine engine(ok_result);
  auto executor = make_serial_executor(engine);
  executor->submit(numbered_tasks(1)[0]);
  EXPECT_THROW(run_batch(*executor, numbered_tasks(2), [](SegmentResult&&) {}),
               core::InternalError);
}

}  // namespace
}  // namespace trails::exec
