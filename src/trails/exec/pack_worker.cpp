// run_pack (pack_worker.h). The summary line on stdout ("walkers ... s of ... s") is what
// bench/slurm_packing reads: walker wall time against the array task's wall time, which starts
// in the job script (TRAILS_TASK_START).
#include "trails/exec/pack_worker.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "trails/core/error.h"
#include "trails/exec/executor.h"
#include "trails/exec/job_files.h"

namespace trails::exec {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::system_clock;

double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

// The task's start as the job script recorded it, else this process's start.
double task_start_s(double fallback) {
  const char* v = std::getenv("TRAILS_TASK_START");
  if (v == nullptr) return fallback;
  char* end = nullptr;
  const double t = std::strtod(v, &end);
  return end != v ? t : fallback;
}

}  // namespace

int run_pack(const PackRun& run, const EngineFactory& make_engine) {
  const double started = now_s();
  const jobs::Pack pack = jobs::read_pack(run.pack);
  std::unique_ptr<engines::Engine> engine;
  std::unique_ptr<engines::EngineInstance> instance;
  try {
    engine = make_engine(pack.setup.engine_setup);
    instance = engine->make_instance(pack.setup.slot);
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
  double walker_s = 0;
  for (const engines::SegmentTask& task : pack.tasks) {
    const double t0 = now_s();
    const engines::SegmentResult result = run_guarded(*instance, task);
    walker_s += now_s() - t0;
    if (result.status != engines::SegmentStatus::Ok) {
      ++failed;
      std::fprintf(stderr, "walker %lld of iteration %lld failed: %s\n",
                   static_cast<long long>(task.walker), static_cast<long long>(task.iteration),
                   result.error.c_str());
    }
    jobs::write_result(stage, result, jobs::task_digest(task));
  }
  if (run.scratch) {
    for (const engines::SegmentTask& task : pack.tasks)
      jobs::copy_result(stage, run.results_dir, task.task_id);
    std::error_code ignored;
    fs::remove_all(stage, ignored);
  }
  std::printf("trails worker --pack: %zu walkers, %d failed, walkers %.3f s of %.3f s task wall\n",
              pack.tasks.size(), failed, walker_s, now_s() - task_start_s(started));
  return failed == 0 ? 0 : 1;
}

}  // namespace trails::exec
