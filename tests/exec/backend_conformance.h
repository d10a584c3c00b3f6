// One executor conformance body over every backend of the one table (exec/backend.h), in the
// manner of WESTPA's per-work-manager test mixins: each test executable instantiates
// BackendConformance with the backends it can run (backends_test.cpp: serial, threads, device
// pools, worker processes; mpi/mpi_executor_test.cpp: MPI ranks under mpirun;
// slurm/slurm_conformance_test.cpp: SLURM arrays on a private local cluster). The engine is
// the built-in one, shipped to out-of-process workers as its setup bytes; the scripted engine of
// executor_kinds.h cannot cross a process boundary. Each backend must give the serial
// reference's bytes in task order on a first batch and on warm slots, keep the streaming
// contract of executor.h, and return an engine's refusal as a Failed result.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "support/builtin_walkers.h"
#include "support/files.h"
#include "trails/config/execution_spec.h"
#include "trails/core/error.h"
#include "trails/engines/builtin/builtin_engine.h"
#include "trails/engines/registry.h"
#include "trails/exec/backend.h"

namespace trails::exec::testing {

using test_support::builtin_config;
using test_support::expect_same;
using test_support::walkers;

// The streaming half of the contract (executor.h) on an idle executor: the empty answer when
// idle, every result of 5 walkers once, counts back to zero, slot i at index i, shutdown
// idempotent, submit after shutdown refused.
inline void expect_streaming_contract(Executor& executor, const engines::Engine& engine) {
  EXPECT_FALSE(executor.next_completed().has_value());  // nothing in flight: at once
  const auto tasks = walkers(engine, 5, 0);
  for (const auto& t : tasks) executor.submit(t);
  std::vector<std::int64_t> ids;
  while (auto r = executor.next_completed()) {
    EXPECT_TRUE(r->ok()) << r->error;
    ids.push_back(r->task_id);
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(executor.in_flight(), 0u);
  EXPECT_EQ(executor.results_waiting(), 0u);
  for (std::size_t i = 0; i < executor.slots().size(); ++i) {
    EXPECT_EQ(executor.slots()[i].index, static_cast<int>(i));
  }
  executor.shutdown();
  executor.shutdown();
  EXPECT_THROW(executor.submit(tasks[0]), core::InternalError);
}

struct BackendKind {
  std::string name;
  config::ExecutionSpec spec;
  std::size_t slots;
  std::size_t max_in_flight;
};

inline void PrintTo(const BackendKind& kind, std::ostream* out) { *out << kind.name; }

// A spec of `backend` on `slots` slots: unbound ones through max_workers, or `devices` x
// `per_device` when devices are given.
inline config::ExecutionSpec backend_spec(config::ExecutionBackend backend, bool processes,
                                          int max_workers, std::vector<int> devices = {},
                                          int per_device = 1, std::size_t bound = 0) {
  config::ExecutionSpec s;
  s.backend = backend;
  s.persistent_workers = processes;
  s.max_workers = max_workers;
  s.devices = std::move(devices);
  s.workers_per_device = per_device;
  s.max_in_flight = bound;
  return s;
}

class BackendConformance : public ::testing::TestWithParam<BackendKind> {
 protected:
  std::unique_ptr<Executor> make(const engines::Engine& engine) const {
    config::ExecutionSpec spec = GetParam().spec;
    // Scheduler arrays keep their job files in a directory of the test's own.
    if (config::is_scheduler(spec.backend)) spec.jobs_dir = test_support::fresh_dir("jobs");
    return make_executor(
        spec, engine,
        engines::worker_engine_setup(builtin_config(), std::filesystem::temp_directory_path()));
  }
};

inline std::string backend_name(const ::testing::TestParamInfo<BackendKind>& info) {
  return info.param.name;
}

TEST_P(BackendConformance, OwnsItsSlotsAndBound) {
  engines::builtin::BuiltinEngine engine(builtin_config());
  const auto executor = make(engine);
  EXPECT_EQ(executor->slots().size(), GetParam().slots);
  EXPECT_EQ(executor->max_in_flight(), GetParam().max_in_flight);
}

// The determinism contract on every backend: the same walkers, the same bytes as the serial
// reference, in task order, on the first batch and on warm slots.
TEST_P(BackendConformance, BitwiseEqualToSerial) {
  engines::builtin::BuiltinEngine engine(builtin_config());
  auto reference = make_serial_executor(engine);
  auto executor = make(engine);
  for (std::int64_t iteration = 0; iteration < 2; ++iteration) {
    const auto tasks = walkers(engine, 13, iteration);
    const auto expected = run_ordered(*reference, tasks);
    const auto actual = run_ordered(*executor, tasks);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) expect_same(actual[i], expected[i]);
  }
}

TEST_P(BackendConformance, StreamingContract) {
  engines::builtin::BuiltinEngine engine(builtin_config());
  auto executor = make(engine);
  expect_streaming_contract(*executor, engine);
}

// A walker the engine refuses is a Failed result with the engine's words; the slot lives on.
TEST_P(BackendConformance, EngineFailuresTravelAsResults) {
  engines::builtin::BuiltinEngine engine(builtin_config());
  auto executor = make(engine);
  auto tasks = walkers(engine, 3, 0);
  tasks[1].steps = 0;  // refused by the engine
  const auto results = run_ordered(*executor, tasks);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_FALSE(results[1].ok());
  EXPECT_EQ(results[1].task_id, 1);
  EXPECT_NE(results[1].error.find("steps must be > 0"), std::string::npos) << results[1].error;
  EXPECT_TRUE(results[0].ok()) << results[0].error;
  EXPECT_TRUE(results[2].ok()) << results[2].error;
}

}  // namespace trails::exec::testing
