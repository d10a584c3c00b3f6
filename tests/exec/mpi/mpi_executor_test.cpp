// The MPI executor (exec/mpi/mpi_executor.h) over real worker ranks and the built-in engine, under
// `mpirun -n K` (K = 2, 3, 4: tests/CMakeLists.txt): the same walkers give the same bytes as the
// serial reference, in task order, on the first batch and on warm ranks, with any bound, and the
// streaming contract of executor.h holds (the conformance body of every backend); executors follow
// one another on the same ranks; a walker that throws in its rank (TRAILS_TEST_FAULT=throw:5:3, set
// for every rank by ctest) fails alone with its error text; execution.binding_check applies to the
// ranks' results. The scripted engine of the in-process conformance suite (executor_kinds.h) cannot
// run here: its behaviours are closures over the test's own state, and a worker rank only receives
// an engine description.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "../backend_conformance.h"
#include "support/builtin_walkers.h"
#include "trails/core/error.h"
#include "trails/core/seeds.h"
#include "trails/engines/builtin/builtin_engine.h"
#include "trails/engines/registry.h"
#include "trails/exec/mpi/mpi_executor.h"

namespace trails::exec {
namespace {

using engines::SegmentResult;
using engines::SegmentTask;
using test_support::builtin_config;
using test_support::expect_same;
using test_support::walkers;
using testing::backend_name;
using testing::backend_spec;
using testing::BackendConformance;
using testing::BackendKind;

MpiWorld& world() {
  MpiWorld* w = MpiWorld::current();
  TRAILS_CHECK(w != nullptr, "mpi_main.cpp made the world");
  return *w;
}

std::unique_ptr<Executor> mpi_executor(std::size_t bound) {
  WorkerOptions o;
  o.engine_setup =
      engines::worker_engine_setup(builtin_config(), std::filesystem::temp_directory_path());
  return make_mpi_executor(world(), o, mpi_slots(world().hosts(), DevicePlan{}, {}), bound);
}

// The conformance body every backend passes (../backend_conformance.h), on the worker ranks of
// this job with any bound, through the one backend table.
INSTANTIATE_TEST_SUITE_P(Mpi, BackendConformance, ::testing::ValuesIn([] {
                           std::vector<BackendKind> kinds;
                           const auto ranks = static_cast<std::size_t>(world().size() - 1);
                           for (const std::size_t bound : {0, 1, 2, 64}) {
                             kinds.push_back({"bound" + std::to_string(bound),
                                              backend_spec(config::ExecutionBackend::Mpi, false, 1,
                                                           {}, 1, bound),
                                              ranks, bound == 0 ? 2 * ranks : bound});
                           }
                           return kinds;
                         }()),
                         backend_name);

// One executor at a time holds the ranks; after it, the next one sets them up again.
TEST(MpiExecutor, ExecutorsFollowOneAnother) {
  engines::builtin::BuiltinEngine engine(builtin_config());
  auto reference = make_serial_executor(engine);
  const auto tasks = walkers(engine, 4, 1);
  const auto expected = run_ordered(*reference, tasks);
  for (int round = 0; round < 3; ++round) {
    auto executor = mpi_executor(0);
    EXPECT_THROW(mpi_executor(0), core::InternalError);  // the ranks are taken
    const auto actual = run_ordered(*executor, tasks);
    for (std::size_t i = 0; i < actual.size(); ++i) expect_same(actual[i], expected[i]);
  }
}

// A walker that throws inside its rank fails alone, with the engine's text; the rank serves on.
TEST(MpiExecutor, ThrowingWalkerFailsOnlyItself) {
  engines::builtin::BuiltinEngine engine(builtin_config());
  auto reference = make_serial_executor(engine);
  auto executor = mpi_executor(0);
  for (const std::int64_t iteration : {5, 6}) {
    const auto tasks = walkers(engine, 6, iteration);
    const auto expected = run_ordered(*reference, tasks);
    const auto actual = run_ordered(*executor, tasks);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
      if (iteration == 5 && i == 3) {
        EXPECT_FALSE(actual[i].ok());
        EXPECT_NE(actual[i].error.find("TRAILS_TEST_FAULT: walker 3 of iteration 5 threw"),
                  std::string::npos)
            << actual[i].error;
      } else {
        expect_same(actual[i], expected[i]);
      }
    }
  }
}

// execution.binding_check on worker ranks: each rank's result carries its placement record (the
// built-in engine records no device), checked on rank 0 against the slot's device: fail turns
// every walker of a device slot into a failure naming the check, warn keeps the serial bytes.
TEST(MpiExecutor, BindingCheckAppliesToTheRanksPlacementRecords) {
  engines::builtin::BuiltinEngine engine(builtin_config());
  ExecutionOptions keys;
  keys.devices = {0};
  keys.workers_per_device = 4;  // up to 4 worker ranks on the one test host
  const DevicePlan plan = resolve_devices(keys, VisibleDevices{});
  const auto tasks = walkers(engine, 4, 1);
  auto reference = make_serial_executor(engine);
  const auto expected = run_ordered(*reference, tasks);
  for (const BindingCheck mode : {BindingCheck::Fail, BindingCheck::Warn}) {
    WorkerOptions o;
    o.engine_setup =
        engines::worker_engine_setup(builtin_config(), std::filesystem::temp_directory_path());
    o.binding_check = mode;
    auto executor = make_mpi_executor(world(), o, mpi_slots(world().hosts(), plan, keys), 0);
    const auto actual = run_ordered(*executor, tasks);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
      if (mode == BindingCheck::Fail) {
        EXPECT_FALSE(actual[i].ok());
        EXPECT_NE(actual[i].error.find("asked for device 0 but the walker ran without a device"),
                  std::string::npos)
            << actual[i].error;
        EXPECT_NE(actual[i].error.find("execution.binding_check: fail"), std::string::npos);
      } else {
        expect_same(actual[i], expected[i]);
      }
    }
  }
}

}  // namespace
}  // namespace trails::exec
