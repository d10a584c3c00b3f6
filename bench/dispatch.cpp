// bench/dispatch: what the executor itself costs per task (docs/performance.md, "Dispatch cost
// per task"). The built-in engine at synthetic_cost_ms 0 on tiny tasks (one step, one frame:
// a few microseconds of MD), submitted in batches of 64 as a campaign submits an iteration;
// per executor: wall time per task, and that minus the serial executor's (the engine's own
// work), the dispatch cost. Goals (issue 12): thread pool <= 0.2 ms, worker processes <= 2 ms,
// MPI ranks <= 5 ms. The MPI row appears when an MPI launcher started the bench: rank 0 measures,
// ranks 1..K-1 serve it as worker ranks (`mpirun -n K bench_dispatch`).
// Usage: bench_dispatch [TASKS=20000] [TRAILS_BINARY=<this program's dir>/../trails]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trails/core/seeds.h"
#include "trails/engines/builtin/builtin_engine.h"
#include "trails/engines/registry.h"
#include "trails/exec/mpi/mpi_executor.h"
#include "trails/exec/process/process_executor.h"

namespace fs = std::filesystem;
using namespace trails;

namespace {

constexpr int kBatch = 64;

double seconds_per_task(exec::Executor& executor, const engines::Engine& engine, int tasks) {
  std::vector<engines::SegmentTask> batch(kBatch);
  for (int w = 0; w < kBatch; ++w) {
    auto& t = batch[static_cast<std::size_t>(w)];
    t.task_id = w;
    t.walker = w;
    t.start = engine.default_start();
    t.steps = 1;
    t.stride = 1;
  }
  exec::run_ordered(executor, batch);  // warm up: first tasks, page faults
  const auto start = std::chrono::steady_clock::now();
  int done = 0;
  for (std::int64_t iteration = 1; done < tasks; ++iteration) {
    for (auto& t : batch) {
      t.iteration = iteration;
      t.seed = core::walker_seed(1, static_cast<std::uint64_t>(iteration),
                                 static_cast<std::uint64_t>(t.walker));
    }
    for (const auto& r : exec::run_ordered(executor, batch)) {
      if (!r.ok()) throw std::runtime_error(r.error);
    }
    done += kBatch;
  }
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
  return wall.count() / done;
}

}  // namespace

int main(int argc, char** argv) {
  std::unique_ptr<exec::MpiWorld> world;
  if (exec::MpiWorld::launched()) {
    world = std::make_unique<exec::MpiWorld>();
    if (world->rank() != 0) {
      return world->serve(
          [](std::span<const std::uint8_t> setup) {
            return engines::make_engine_from_setup(setup);
          },
          "bench_dispatch worker");
    }
  }
  const int tasks = argc > 1 ? std::stoi(argv[1]) : 20000;
  const fs::path trails = argc > 2
                              ? fs::path(argv[2])
                              : fs::read_symlink("/proc/self/exe").parent_path() / ".." / "trails";
  config::BuiltinEngineConfig c;
  c.potential = config::Potential::MullerBrown;
  engines::builtin::BuiltinEngine engine(c);
  exec::WorkerOptions workers;
  workers.argv = {fs::weakly_canonical(trails).string(), "worker"};
  workers.engine_setup = engines::worker_engine_setup(c, fs::temp_directory_path());

  struct Row {
    std::string name;
    std::function<std::unique_ptr<exec::Executor>()> make;
  };
  std::vector<Row> rows = {
      {"serial (reference)", [&] { return exec::make_serial_executor(engine); }},
      {"thread pool, 1 slot", [&] { return exec::make_thread_pool_executor(engine, 1, kBatch); }},
      {"thread pool, 2 slots", [&] { return exec::make_thread_pool_executor(engine, 2, kBatch); }},
      {"thread pool, 4 slots", [&] { return exec::make_thread_pool_executor(engine, 4, kBatch); }},
      {"worker processes, 1", [&] { return exec::make_process_executor(workers, 1, kBatch); }},
      {"worker processes, 2", [&] { return exec::make_process_executor(workers, 2, kBatch); }},
      {"worker processes, 4", [&] { return exec::make_process_executor(workers, 4, kBatch); }},
  };
  if (world && world->size() > 1) {
    rows.push_back({fmt::format("MPI ranks, {}", world->size() - 1), [&] {
                      return exec::make_mpi_executor(
                          *world, workers, exec::mpi_slots(world->hosts(), {}, {}), kBatch);
                    }});
  } else {
    std::printf("(no MPI row: start under mpirun -n K for K-1 worker ranks)\n");
  }
  std::printf("| executor | µs per task (wall) | dispatch µs per task (wall - serial) |\n");
  std::printf("|---|---:|---:|\n");
  double serial = 0.0;
  for (const Row& row : rows) {
    auto executor = row.make();
    const double s = seconds_per_task(*executor, engine, tasks);
    if (serial == 0.0) serial = s;
    std::printf("| %s | %.2f | %.2f |\n", row.name.c_str(), s * 1e6, (s - serial) * 1e6);
    std::fflush(stdout);
  }
  return 0;
}
