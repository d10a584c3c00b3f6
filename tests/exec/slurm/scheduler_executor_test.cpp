// The scheduler array executor (exec/scheduler/scheduler_executor.h) on the private SLURM
// cluster, beyond the conformance body (slurm_conformance_test.cpp): execution.max_array_size
// below the scheduler's own limit splits a batch, submit blocks at max_in_flight and each full
// queue runs as its own batch, and a submission the scheduler refuses surfaces from
// next_completed as an EngineError; without the scheduler's commands there is no executor.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "slurm_test_support.h"
#include "support/builtin_walkers.h"
#include "support/compare.h"
#include "support/files.h"
#include "trails/core/error.h"
#include "trails/engines/builtin/builtin_engine.h"

namespace trails::exec {
namespace {

using test_support::builtin_config;
using test_support::expect_same;
using test_support::walkers;
using testing::LogCapture;
using testing::slurm_options;

void expect_executor_serial_bytes(Executor& executor,
                                  const std::vector<engines::SegmentTask>& tasks) {
  engines::builtin::BuiltinEngine engine(builtin_config());
  const auto expected = run_ordered(*make_serial_executor(engine), tasks);
  const auto actual = run_ordered(executor, tasks);
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) expect_same(actual[i], expected[i]);
}

// The cluster states MaxArraySize 10001 (scripts/slurm-local); the key's 1 wins: two array
// tasks of two walkers each go out as two arrays.
TEST(SchedulerExecutor, MaxArraySizeSplitsTheBatch) {
  auto o = slurm_options(test_support::fresh_dir());
  o.keys.max_array_size = 1;
  o.keys.walkers_per_task = 2;
  const auto executor = make_scheduler_executor(o);
  engines::builtin::BuiltinEngine engine(builtin_config());
  const LogCapture log;
  expect_executor_serial_bytes(*executor, walkers(engine, 4, 1));
  executor->shutdown();  // the batch logs its summary after its last result: wait for it
  trails::test_support::expect_has(
      log.text(), "4 walkers in 2 array task(s), 0 reused, 1 attempt(s), 2 submission(s)");
}

// A bound of 2: the third submit waits until the first two, one batch, have finished.
TEST(SchedulerExecutor, EachFullQueueIsOneBatch) {
  auto o = slurm_options(test_support::fresh_dir());
  o.max_in_flight = 2;
  const auto executor = make_scheduler_executor(o);
  EXPECT_EQ(executor->max_in_flight(), 2u);
  EXPECT_EQ(executor->slots().size(), 2u);
  engines::builtin::BuiltinEngine engine(builtin_config());
  const LogCapture log;
  expect_executor_serial_bytes(*executor, walkers(engine, 3, 2));
  executor->shutdown();  // the last batch logs its summary after its last result
  const std::string text = log.text();
  trails::test_support::expect_has(text, "slurm: iteration 2: 2 walkers in 2 array task(s)");
  trails::test_support::expect_has(text, "slurm: iteration 2: 1 walkers in 1 array task(s)");
}

// sbatch refuses a partition the cluster does not have: not a passing condition, so no retry;
// the error reaches the driver from next_completed and nothing stays in flight.
TEST(SchedulerExecutor, ASubmissionTheSchedulerRefusesIsAnEngineError) {
  auto o = slurm_options(test_support::fresh_dir());
  o.keys.partition = "no-such-partition";
  const auto executor = make_scheduler_executor(o);
  engines::builtin::BuiltinEngine engine(builtin_config());
  for (const auto& t : walkers(engine, 2, 0)) executor->submit(t);
  try {
    (void)executor->next_completed();
    FAIL() << "no EngineError";
  } catch (const core::EngineError& e) {
    trails::test_support::expect_has(e.what(), "sbatch");
    trails::test_support::expect_has(e.what(), "no-such-partition");
  }
  EXPECT_EQ(executor->in_flight(), 0u);
  EXPECT_FALSE(executor->next_completed().has_value());
}

// PBS's qstat is not on PATH: the executor is refused at once, as a configuration error.
TEST(SchedulerExecutor, WithoutTheSchedulersCommandsIsAConfigError) {
  auto o = slurm_options(test_support::fresh_dir());
  o.kind = SchedulerKind::Pbs;
  const std::string path = std::getenv("PATH");
  ::setenv("PATH", test_support::fresh_dir("empty").c_str(), 1);
  try {
    (void)make_scheduler_executor(o);
    ADD_FAILURE() << "no ConfigError";
  } catch (const core::ConfigError& e) {
    trails::test_support::expect_has(e.what(),
                                     "execution.backend: pbs needs the scheduler's commands");
    trails::test_support::expect_has(e.what(), "qstat");
  }
  ::setenv("PATH", path.c_str(), 1);
}

}  // namespace
}  // namespace trails::exec
