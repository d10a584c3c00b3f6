// run_pack (pack_worker.h). The summary line on stdout ("walkers ... s of ... s") is what
// bench/slurm_packing reads: walker wall time against the array task's wall time, which starts
// in the job script (TRAILS_TASK_START).
#include "trails/exec/scheduler/pack_worker.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "trails/core/error.h"
#include "trails/exec/executor.h"
#include "trails/exec/scheduler/job_files.h"
#include "trails/exec/scheduler/task_heartbeat.h"

namespace trails::exec {
namespace {

namespace fs = std::filesystem;
using WallClock = std::chrono::system_clock;

double now_s() {
  return std::chrono::duration<double>(WallClock::now().time_since_epoch()).count();
}

// The task's start as the job script recorded it, else this process's start.
double task_start_s(double fallback) {
  const char* v = std::getenv("TRAILS_TASK_START");
  if (v == nullptr) return fallback;
  char* end = nullptr;
  const double t = std::strtod(v, &end);
  return end != v ? t : fallback;
}

// The plan and its executor inside this array task; the scheduler's CUDA_VISIBLE_DEVICES maps
// the logical devices. Throws ConfigError (a device beyond what the scheduler gave the task).
struct TaskPool {
  DevicePlan plan;
  std::unique_ptr<Executor> executor;
};

TaskPool make_task_pool(const engines::Engine& engine, ExecutionOptions options,
                        std::size_t tasks) {
  TaskPool pool;
  pool.plan = resolve_devices(options, inherited_visible_devices());
  options.max_workers = 1;  // without devices: one warm instance, walkers back to back
  options.max_in_flight = std::max<std::size_t>(tasks, 1);
  pool.executor = make_executor(engine, pool.plan, options);
  return pool;
}

}  // namespace

std::vector<std::string> pack_worker_arguments(const ExecutionOptions& placement,
                                               std::chrono::milliseconds heartbeat_period) {
  std::vector<std::string> args = {"--heartbeat",
                                   fmt::format("{:.3f}", heartbeat_period.count() / 1000.0)};
  if (placement.devices.empty()) return args;
  args.insert(args.end(), {"--devices", fmt::format("{}", fmt::join(placement.devices, ",")),
                           "--workers-per-device", std::to_string(placement.workers_per_device),
                           "--binding-check", std::string(name(placement.binding_check))});
  return args;
}

int run_pack(const PackRun& run, const EngineFactory& make_engine) {
  const double started = now_s();
  const jobs::Pack pack = jobs::read_pack(run.pack);
  WalkerWatch watch;
  std::unique_ptr<engines::Engine> engine;
  std::unique_ptr<engines::Engine> watched;
  TaskPool pool;
  try {
    engine = make_engine(pack.setup.engine_setup);
    watched = watch.watched(*engine);
    pool = make_task_pool(*watched, run.placement, pack.tasks.size());
  } catch (const core::Error& e) {
    std::fprintf(stderr, "trails worker --pack %s: cannot build the engine: %s\n", run.pack.c_str(),
                 e.describe().c_str());
    return 1;
  }
  // A directory of its own under scratch: array tasks of one node share $TMPDIR.
  const fs::path stage = run.scratch ? *run.scratch / fmt::format("trails-pack-{}-{}", ::getpid(),
                                                                  run.pack.stem().string())
                                     : run.results_dir;
  fs::create_directories(stage);
  int failed = 0;
  double walker_s = 0;  // the walkers' wall time (packed walkers overlap)
  {
    const HeartbeatWriter heartbeat(heartbeat_path(run.results_dir, run.pack), run.heartbeat_period,
                                    watch);
    const double t0 = now_s();
    run_batch(*pool.executor, pack.tasks, [&](engines::SegmentResult&& result) {
      const engines::SegmentTask& task =
          *std::find_if(pack.tasks.begin(), pack.tasks.end(),
                        [&](const engines::SegmentTask& t) { return t.task_id == result.task_id; });
      if (result.status != engines::SegmentStatus::Ok) {
        ++failed;
        std::fprintf(stderr, "walker %lld of iteration %lld failed: %s\n",
                     static_cast<long long>(task.walker), static_cast<long long>(task.iteration),
                     result.error.c_str());
      }
      jobs::write_result(stage, result, jobs::task_digest(task));
    });
    walker_s = now_s() - t0;
    if (run.scratch) {
      for (const engines::SegmentTask& task : pack.tasks)
        jobs::copy_result(stage, run.results_dir, task.task_id);
      std::error_code ignored;
      fs::remove_all(stage, ignored);
    }
  }
  const std::string where = pool.plan.devices.empty() ? std::string("back to back on one instance")
                                                      : "packed on " + pool.plan.describe();
  std::printf(
      "trails worker --pack: %zu walkers, %d failed, %s, walkers %.3f s of %.3f s task wall\n",
      pack.tasks.size(), failed, where.c_str(), walker_s, now_s() - task_start_s(started));
  return failed == 0 ? 0 : 1;
}

}  // namespace trails::exec
