// Executor conformance, results half, over every executor of executor_kinds.h: the same inputs
// give the same bytes as the serial reference (results compared through their wire encoding,
// timings zeroed), each result is bound to its task's task_id whatever the completion order,
// and walker failures arrive as Failed results with the engine's readable error.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <thread>

#include "executor_kinds.h"
#include "trails/core/seeds.h"
#include "trails/engines/builtin/builtin_engine.h"
#include "trails/exec/executor.h"
#include "trails/exec/wire/wire.h"

namespace trails::exec {
namespace {

using engines::SegmentResult;
using engines::SegmentTask;
using testing::ExecutorKind;

class ExecutorResults : public ::testing::TestWithParam<ExecutorKind> {};

INSTANTIATE_TEST_SUITE_P(Local, ExecutorResults, ::testing::ValuesIn(testing::all_executor_kinds()),
                         [](const auto& info) { return std::string(info.param.name); });

// Everything a result says except how long it took.
std::vector<std::uint8_t> canonical_bytes(SegmentResult r) {
  r.startup_s = r.integrate_s = r.extract_s = 0.0;
  return wire::encode(r);
}

engines::builtin::BuiltinEngine muller_brown() {
  config::BuiltinEngineConfig c;
  c.potential = config::Potential::MullerBrown;
  c.integrator = config::Integrator::Langevin;
  c.dt = 1e-4;
  return engines::builtin::BuiltinEngine(c);
}

// 30 walkers of uneven length (completion order scrambles); every fifth starts at NaN and fails.
std::vector<SegmentTask> walkers(const engines::Engine& engine) {
  std::vector<SegmentTask> tasks;
  for (int w = 0; w < 30; ++w) {
    SegmentTask t;
    t.task_id = w;
    t.iteration = 3;
    t.walker = w;
    t.start = engine.default_start();
    if (w % 5 == 2) t.start.positions[0] = std::numeric_limits<double>::quiet_NaN();
    t.steps = 150 + 13 * (w % 7);
    t.stride = 10;
    t.seed = core::walker_seed(42, 3, static_cast<std::uint64_t>(w));
    tasks.push_back(t);
  }
  return tasks;
}

TEST_P(ExecutorResults, SameInputsGiveTheSameBytesAsSerial) {
  const auto engine = muller_brown();
  const std::vector<SegmentTask> tasks = walkers(engine);
  auto reference = make_serial_executor(engine);
  const std::vector<SegmentResult> expected = run_ordered(*reference, tasks);
  auto executor = GetParam().make(engine);
  for (int batch = 0; batch < 2; ++batch) {  // the second batch runs on warm instances
    const std::vector<SegmentResult> actual = run_ordered(*executor, tasks);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
      EXPECT_EQ(canonical_bytes(actual[i]), canonical_bytes(expected[i])) << "task " << i;
    }
  }
  EXPECT_NE(canonical_bytes(expected[0]), canonical_bytes(expected[1]));  // not all alike
}

TEST_P(ExecutorResults, StreamedResultsReassembleToTheSameBytes) {
  const auto engine = muller_brown();
  std::vector<SegmentTask> tasks = walkers(engine);
  auto reference = make_serial_executor(engine);
  const std::vector<SegmentResult> expected = run_ordered(*reference, tasks);
  std::reverse(tasks.begin(), tasks.end());  // submission order is not task order
  auto executor = GetParam().make(engine);
  std::map<std::int64_t, SegmentResult> by_id;
  for (const SegmentTask& task : tasks) {
    executor->submit(task);
    while (executor->results_waiting() > 0) {
      SegmentResult r = *executor->next_completed();
      by_id.emplace(r.task_id, std::move(r));
    }
  }
  while (auto r = executor->next_completed()) by_id.emplace(r->task_id, std::move(*r));
  ASSERT_EQ(by_id.size(), expected.size());
  for (const SegmentResult& e : expected) {
    EXPECT_EQ(canonical_bytes(by_id.at(e.task_id)), canonical_bytes(e)) << "task " << e.task_id;
  }
}

TEST_P(ExecutorResults, ResultsAreBoundToTheirTaskId) {
  testing::ScriptedEngine engine([](const SegmentTask& task) {
    std::this_thread::sleep_for(std::chrono::microseconds(50 * (task.seed % 9)));
    SegmentResult r = testing::ok_result(task);
    r.task_id = -1;  // an engine that gets it wrong: the executor restores it
    return r;
  });
  std::vector<SegmentTask> tasks;
  for (int i = 0; i < 40; ++i) {
    SegmentTask t;
    t.task_id = 1000 - 37 * i;  // neither contiguous nor increasing
    t.seed = static_cast<std::uint64_t>(7919 * i + 13);
    tasks.push_back(t);
  }
  auto executor = GetParam().make(engine);
  std::map<std::int64_t, std::uint64_t> seed_of;
  for (const SegmentTask& t : tasks) seed_of[t.task_id] = t.seed;
  std::size_t seen = 0;
  run_batch(*executor, tasks, [&](SegmentResult&& r) {
    ++seen;
    ASSERT_TRUE(seed_of.contains(r.task_id)) << r.task_id;
    EXPECT_EQ(r.final_state.positions.at(0), static_cast<double>(seed_of.at(r.task_id)));
    seed_of.erase(r.task_id);  // exactly once
  });
  EXPECT_EQ(seen, tasks.size());
  EXPECT_TRUE(seed_of.empty());
}

TEST_P(ExecutorResults, WalkerFailuresAreFailedResultsWithTheEnginesError) {
  const auto engine = muller_brown();
  auto executor = GetParam().make(engine);
  const std::vector<SegmentResult> results = run_ordered(*executor, walkers(engine));
  ASSERT_EQ(results.size(), 30u);
  for (const SegmentResult& r : results) {
    if (r.task_id % 5 == 2) {
      EXPECT_FALSE(r.ok()) << r.task_id;
      EXPECT_NE(r.error.find("walker " + std::to_string(r.task_id) + " of iteration 3"),
                std::string::npos)
          << r.error;
      EXPECT_NE(r.error.find("non-finite"), std::string::npos) << r.error;
      EXPECT_TRUE(r.frames.empty());
    } else {
      EXPECT_TRUE(r.ok()) << r.error;
      EXPECT_EQ(r.n_frames, (150 + 13 * (r.task_id % 7)) / 10);
    }
  }
}

}  // namespace
}  // namespace trails::exec
