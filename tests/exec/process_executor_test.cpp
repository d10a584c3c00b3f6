// The process executor (exec/process/process_executor.h) over real `trails worker` processes and
// the built-in engine, beyond the conformance body every backend passes (backends_test.cpp: the
// serial reference's bytes on any slot count and bound, the streaming contract, engine
// failures as results): each failure of a worker fails only the walker it was running, after which
// a fresh worker serves the slot. Faults are injected with TRAILS_TEST_FAULT=KIND:ITERATION:WALKER
// (engines/builtin/test_fault.h, tests only), set in the workers' environment: segv and abort crash
// the worker, hang makes it run for ever while its heartbeat thread keeps beating, stop freezes the
// whole process (no heartbeats).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/builtin_walkers.h"
#include "trails/core/error.h"
#include "trails/core/seeds.h"
#include "trails/engines/builtin/builtin_engine.h"
#include "trails/engines/registry.h"
#include "trails/exec/process/process_executor.h"

namespace trails::exec {
namespace {

using engines::SegmentResult;
using engines::SegmentTask;
using std::chrono::milliseconds;
using test_support::builtin_config;
using test_support::expect_same;
using test_support::walkers;

WorkerOptions worker_options(const config::BuiltinEngineConfig& c, std::string fault = {}) {
  WorkerOptions o;
  o.argv = {TRAILS_BINARY, "worker"};
  o.engine_setup = engines::worker_engine_setup(c, std::filesystem::temp_directory_path());
  if (!fault.empty()) o.set_env = {{"TRAILS_TEST_FAULT", std::move(fault)}};
  return o;
}

// Every walker but `bad` equals the serial reference; `bad` failed with an error that has
// every one of `words`.
void expect_only_failed(const std::vector<SegmentResult>& actual,
                        const std::vector<SegmentResult>& expected, std::size_t bad,
                        const std::vector<std::string>& words) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (i != bad) {
      expect_same(actual[i], expected[i]);
      continue;
    }
    EXPECT_FALSE(actual[i].ok());
    EXPECT_EQ(actual[i].task_id, expected[i].task_id);
    for (const std::string& word : words) {
      EXPECT_NE(actual[i].error.find(word), std::string::npos)
          << "'" << word << "' not in: " << actual[i].error;
    }
  }
}

struct Crash {
  const char* kind;
  const char* signal;
};

class ProcessCrash : public ::testing::TestWithParam<Crash> {};

INSTANTIATE_TEST_SUITE_P(Kinds, ProcessCrash,
                         ::testing::Values(Crash{"segv", "SIGSEGV"}, Crash{"abort", "SIGABRT"}),
                         [](const auto& info) { return std::string(info.param.kind); });

// One crashing walker: only it fails, its error names the signal and quotes the worker's
// stderr; the next iteration runs in full on the restarted worker.
TEST_P(ProcessCrash, FailsOnlyItsWalkerAndTheWorkerIsRestarted) {
  const auto c = builtin_config();
  engines::builtin::BuiltinEngine engine(c);
  auto reference = make_serial_executor(engine);
  auto executor =
      make_process_executor(worker_options(c, std::string(GetParam().kind) + ":0:2"), 2);
  for (std::int64_t iteration = 0; iteration < 2; ++iteration) {
    const auto tasks = walkers(engine, 6, iteration);
    const auto expected = run_ordered(*reference, tasks);
    const auto actual = run_ordered(*executor, tasks);
    if (iteration == 0) {
      expect_only_failed(actual, expected, 2,
                         {"walker 2 of iteration 0", GetParam().signal,
                          std::string("TRAILS_TEST_FAULT: ") + GetParam().kind,
                          "a new worker takes the slot's next task"});
    } else {
      for (std::size_t i = 0; i < actual.size(); ++i) expect_same(actual[i], expected[i]);
    }
  }
}

// The child processes of this test process (the workers), from /proc.
std::vector<pid_t> children() {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    std::istringstream rest(line.substr(line.rfind(')') + 2));  // after "pid (comm) "
    char state = 0;
    pid_t parent = 0;
    rest >> state >> parent;
    if (parent == ::getpid() && state != 'Z') out.push_back(std::stoi(name));
  }
  return out;
}

// kill -9 from outside while the worker runs a walker (walker 0, made to hang so that it is
// surely still running): that walker fails naming SIGKILL, the others run on a new worker.
TEST(ProcessExecutor, KillFromOutsideFailsOnlyTheRunningWalker) {
  const auto c = builtin_config();
  engines::builtin::BuiltinEngine engine(c);
  auto executor = make_process_executor(worker_options(c, "hang:0:0"), 1, 1);
  const auto tasks = walkers(engine, 3, 0);
  auto reference = make_serial_executor(engine);
  const auto expected = run_ordered(*reference, tasks);
  const auto pids = children();  // the one worker, started and greeted
  ASSERT_EQ(pids.size(), 1u);
  std::thread killer([pid = pids[0]] {
    std::this_thread::sleep_for(milliseconds(500));
    ::kill(pid, SIGKILL);
  });
  const auto actual = run_ordered(*executor, tasks);
  killer.join();
  expect_only_failed(actual, expected, 0,
                     {"walker 0 of iteration 0", "killed by signal 9 (SIGKILL)"});
}

// walker_timeout kills only the hung walker's worker; the other slot's walkers are untouched.
TEST(ProcessExecutor, WalkerTimeoutKillsOnlyTheHungWalker) {
  const auto c = builtin_config();
  engines::builtin::BuiltinEngine engine(c);
  WorkerOptions options = worker_options(c, "hang:0:1");
  options.walker_timeout = milliseconds(1500);
  auto executor = make_process_executor(options, 2);
  auto reference = make_serial_executor(engine);
  const auto tasks = walkers(engine, 5, 0);
  expect_only_failed(run_ordered(*executor, tasks), run_ordered(*reference, tasks), 1,
                     {"walker 1 of iteration 0", "walker exceeded execution.walker_timeout (1.5 s)",
                      "was killed", "TRAILS_TEST_FAULT: hang"});
}

// A frozen worker (SIGSTOP: no heartbeats) is found without any walker_timeout.
TEST(ProcessExecutor, HeartbeatLossKillsAStoppedWorker) {
  const auto c = builtin_config();
  engines::builtin::BuiltinEngine engine(c);
  WorkerOptions options = worker_options(c, "stop:0:0");
  options.heartbeat_interval = milliseconds(50);
  options.heartbeat_timeout = milliseconds(1000);
  auto executor = make_process_executor(options, 2);
  auto reference = make_serial_executor(engine);
  const auto tasks = walkers(engine, 4, 0);
  expect_only_failed(run_ordered(*executor, tasks), run_ordered(*reference, tasks), 0,
                     {"walker 0 of iteration 0", "sent no heartbeat for 1 s", "hung or stopped"});
}

// A walker much longer than heartbeat_timeout is fine while the heartbeats come: the silence
// limit is about the worker, not about the walker's length.
TEST(ProcessExecutor, HeartbeatsKeepALongWalkerAlive) {
  auto c = builtin_config();
  c.synthetic_cost_ms = 3000;
  engines::builtin::BuiltinEngine engine(c);
  WorkerOptions options = worker_options(c);
  options.heartbeat_interval = milliseconds(50);
  options.heartbeat_timeout = milliseconds(1000);
  auto executor = make_process_executor(options, 1);
  const auto results = run_ordered(*executor, walkers(engine, 1, 0));
  EXPECT_TRUE(results[0].ok()) << results[0].error;
}

TEST(ProcessExecutor, AWorkerThatCannotStartIsAnError) {
  const auto c = builtin_config();
  WorkerOptions options = worker_options(c);
  options.engine_setup = {1, 2, 3};
  try {
    make_process_executor(options, 1);
    FAIL() << "no error";
  } catch (const core::EngineError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the worker process of slot 0"), std::string::npos) << what;
    EXPECT_NE(what.find("worker could not start"), std::string::npos) << what;
  }
  options.argv = {"/nonexistent/trails", "worker"};
  EXPECT_THROW(make_process_executor(options, 1), core::InputError);
}

}  // namespace
}  // namespace trails::exec
