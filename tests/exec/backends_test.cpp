// The executor conformance body (backend_conformance.h) over every backend a unit test can run:
// serial, a thread pool, device pools, and persistent `trails worker` processes (unbound and on
// devices), each made by the one backend table from an ExecutionSpec.
#include "backend_conformance.h"

namespace trails::exec::testing {
namespace {

using config::ExecutionBackend;
constexpr auto kLocal = ExecutionBackend::Local;

// backend_spec() with the trails binary under test as the worker program.
config::ExecutionSpec spec(ExecutionBackend backend, bool processes, int max_workers,
                           std::vector<int> devices = {}, int per_device = 1,
                           std::size_t bound = 0) {
  config::ExecutionSpec s =
      backend_spec(backend, processes, max_workers, std::move(devices), per_device, bound);
  s.worker_argv = {TRAILS_BINARY, "worker"};
  return s;
}

INSTANTIATE_TEST_SUITE_P(
    Table, BackendConformance,
    ::testing::Values(BackendKind{"serial", spec(kLocal, false, 1), 1, 1},
                      BackendKind{"threads3", spec(kLocal, false, 3), 3, 6},
                      BackendKind{"threads4_bound2", spec(kLocal, false, 4, {}, 1, 2), 4, 2},
                      BackendKind{"devices2x2", spec(kLocal, false, 1, {0, 1}, 2), 4, 8},
                      BackendKind{"processes1_bound1", spec(kLocal, true, 1, {}, 1, 1), 1, 1},
                      BackendKind{"processes1", spec(kLocal, true, 1), 1, 2},
                      BackendKind{"processes3", spec(kLocal, true, 3), 3, 6},
                      BackendKind{"processes3_bound2", spec(kLocal, true, 3, {}, 1, 2), 3, 2},
                      BackendKind{"processes4_bound64", spec(kLocal, true, 4, {}, 1, 64), 4, 64},
                      BackendKind{"processes_devices2x1_bound64",
                                  spec(kLocal, true, 1, {0, 1}, 1, 64), 2, 64}),
    backend_name);

// The table's words after the slot count, as both drivers' banners print them.
TEST(BackendTable, SlotsNote) {
  EXPECT_EQ(slots_note(spec(kLocal, false, 4)), "");
  EXPECT_EQ(slots_note(spec(kLocal, true, 4)), " (persistent processes)");
  EXPECT_EQ(slots_note(spec(ExecutionBackend::Mpi, false, 1)), " (MPI ranks)");
  auto arrays = spec(ExecutionBackend::Pbs, false, 1);
  arrays.scheduler.walkers_per_task = 3;
  EXPECT_EQ(slots_note(arrays), " (pbs array tasks, 3 walker(s) each)");
}

// Without an MPI world the mpi backend is a configuration error naming the file and the launcher.
TEST(BackendTable, MpiWithoutAWorldIsAConfigError) {
  engines::builtin::BuiltinEngine engine(builtin_config());
  auto mpi = spec(ExecutionBackend::Mpi, false, 1);
  mpi.config_file = "/runs/input.yaml";
  try {
    (void)make_executor(mpi, engine, {});
    FAIL() << "no ConfigError";
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/runs/input.yaml: execution.backend: mpi"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("mpirun -n K"), std::string::npos) << e.what();
  }
}

// The placement of a spec: its devices in this process's CUDA_VISIBLE_DEVICES, the keys that
// name them, and none under a scheduler (the array tasks' own devices are not visible here).
TEST(BackendTable, PlacementOfASpec) {
  auto s = spec(kLocal, false, 2, {1, 0}, 3, 5);
  s.devices_key = "pathgennie.devices";
  s.binding_check = "fail";
  const ExecutionOptions o = placement_of(s);
  EXPECT_EQ(o.devices, (std::vector<int>{1, 0}));
  EXPECT_EQ(o.workers_per_device, 3);
  EXPECT_EQ(o.max_workers, 2);
  EXPECT_EQ(o.max_in_flight, 5u);
  EXPECT_EQ(o.binding_check, BindingCheck::Fail);
  EXPECT_EQ(o.devices_key, "pathgennie.devices");
  s.backend = ExecutionBackend::Slurm;
  EXPECT_FALSE(visible_devices_of(s).set);
}

}  // namespace
}  // namespace trails::exec::testing
