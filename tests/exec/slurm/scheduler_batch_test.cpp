// One batch of the scheduler array executor (exec/scheduler/scheduler_batch.h) on the private
// SLURM cluster: chunks under the array limit and the max_in_flight throttle (job packing is the
// conformance body's, slurm_conformance_test.cpp), a failed walker retried then reported with its
// job files kept, a resumed batch reusing the results that stand, an array element that died
// without a marker, and a stop. Each batch's summary line says how many arrays, elements, reuses
// and attempts it took.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "slurm_test_support.h"
#include "support/builtin_walkers.h"
#include "support/compare.h"
#include "support/files.h"
#include "trails/engines/builtin/builtin_engine.h"
#include "trails/exec/scheduler/scheduler_batch.h"

namespace trails::exec {
namespace {

namespace fs = std::filesystem;
using engines::SegmentResult;
using engines::SegmentTask;
using test_support::builtin_config;
using test_support::expect_same;
using test_support::walkers;
using testing::LogCapture;
using testing::slurm_options;

// TRAILS_TEST_FAULT (engines/builtin/test_fault.h) while it lives: sbatch passes this process's
// environment to the array tasks.
class Fault {
 public:
  explicit Fault(const char* spec) { ::setenv("TRAILS_TEST_FAULT", spec, 1); }
  ~Fault() { ::unsetenv("TRAILS_TEST_FAULT"); }
  Fault(const Fault&) = delete;
  Fault& operator=(const Fault&) = delete;
};

// The batch run to its end; results in task order.
std::vector<SegmentResult> run_batch_of(const SchedulerExecutorOptions& o,
                                        std::optional<int> array_limit,
                                        const std::vector<SegmentTask>& tasks) {
  std::vector<SegmentResult> out;
  const detail::Deliver deliver = [&](SegmentResult&& r) { out.push_back(std::move(r)); };
  const detail::Pause pause = [](std::chrono::milliseconds d) {
    std::this_thread::sleep_for(d);
    return true;
  };
  detail::run_scheduler_batch(o, array_limit, tasks, deliver, pause);
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.task_id < b.task_id; });
  return out;
}

std::vector<SegmentResult> serial(const std::vector<SegmentTask>& tasks) {
  engines::builtin::BuiltinEngine engine(builtin_config());
  return run_ordered(*make_serial_executor(engine), tasks);
}

void expect_serial_bytes(const std::vector<SegmentResult>& actual,
                         const std::vector<SegmentTask>& tasks) {
  const auto expected = serial(tasks);
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) expect_same(actual[i], expected[i]);
}

std::vector<SegmentTask> tasks_of(int n, std::int64_t iteration) {
  engines::builtin::BuiltinEngine engine(builtin_config());
  return walkers(engine, n, iteration);
}

// An array limit of 2 splits 3 elements into arrays of 2 and 1, never more than
// max_in_flight: 2 of them unfinished; the job files of a batch that succeeded are removed.
TEST(SchedulerBatch, ChunksUnderTheArrayLimitAndTheThrottle) {
  const fs::path jobs = test_support::fresh_dir();
  auto o = slurm_options(jobs);
  o.keys.max_in_flight = 2;
  const auto tasks = tasks_of(3, 3);
  const LogCapture log;
  expect_serial_bytes(run_batch_of(o, 2, tasks), tasks);
  trails::test_support::expect_has(
      log.text(),
      "slurm: iteration 3: 3 walkers in 3 array task(s), 0 reused, 1 attempt(s), 2 "
      "submission(s)");
  EXPECT_FALSE(fs::exists(jobs / "iter_3"));
}

// A walker that fails in its array task runs again (max_retries: 1) and is then delivered with
// the engine's error; the job files stay for the user. Run again (a resumed campaign), the
// walkers with a success marker are reused and only the failed one is submitted.
TEST(SchedulerBatch, AFailedWalkerIsRetriedReportedAndAloneResubmittedOnResume) {
  const fs::path jobs = test_support::fresh_dir();
  auto o = slurm_options(jobs);
  o.keys.max_retries = 1;
  const auto tasks = tasks_of(2, 7);
  const auto expected = serial(tasks);
  {
    const Fault fault("throw:7:1");
    const LogCapture log;
    const auto results = run_batch_of(o, std::nullopt, tasks);
    ASSERT_EQ(results.size(), 2u);
    expect_same(results[0], expected[0]);
    EXPECT_FALSE(results[1].ok());
    trails::test_support::expect_has(results[1].error, "TRAILS_TEST_FAULT");
    trails::test_support::expect_has(
        log.text(), "2 walkers in 3 array task(s), 0 reused, 2 attempt(s), 2 submission(s)");
    EXPECT_TRUE(fs::exists(jobs / "iter_7" / "submit_a0_c0.sh"));
    EXPECT_TRUE(fs::exists(jobs / "iter_7" / "submit_a1_c0.sh"));
  }
  const LogCapture log;
  expect_serial_bytes(run_batch_of(o, std::nullopt, tasks), tasks);
  trails::test_support::expect_has(log.text(),
                                   "1 of 2 walkers of iteration 7 already have results");
  trails::test_support::expect_has(
      log.text(), "2 walkers in 1 array task(s), 1 reused, 1 attempt(s), 1 submission(s)");
  EXPECT_FALSE(fs::exists(jobs / "iter_7"));
}

// An array task that dies (SIGSEGV) leaves no marker: its walker fails naming the attempts and
// the element's log, the other element's walker is unaffected.
TEST(SchedulerBatch, AnElementThatDiesFailsItsWalkerNamingItsLog) {
  const auto o = slurm_options(test_support::fresh_dir());
  const auto tasks = tasks_of(2, 8);
  const Fault fault("segv:8:0");
  const auto results = run_batch_of(o, std::nullopt, tasks);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(results[0].ok());
  trails::test_support::expect_has(
      results[0].error,
      "walker 0 of iteration 8: no result after 1 attempt(s) of the slurm array "
      "(execution.max_retries: 0); the array task's log: ");
  expect_same(results[1], serial(tasks)[1]);
}

// A stop (the pause answers false) cancels the submitted array; nothing unfinished is delivered.
TEST(SchedulerBatch, AStopCancelsTheArrayAndDeliversNothingUnfinished) {
  const auto o = slurm_options(test_support::fresh_dir());
  std::vector<SegmentResult> delivered;
  detail::run_scheduler_batch(
      o, std::nullopt, tasks_of(3, 9), [&](SegmentResult&& r) { delivered.push_back(r); },
      [](std::chrono::milliseconds) { return false; });
  EXPECT_TRUE(delivered.empty());
}

}  // namespace
}  // namespace trails::exec
