// The array-task side of the scheduler backends (exec/scheduler/pack_worker.h, job_files.h):
// a pack file read back as written; `trails worker --pack`'s run_pack over the built-in engine
// writes, for every walker, the serial reference's result and a success marker with the task's
// digest, back to back, packed on devices, or staged through a scratch directory; an engine that
// cannot be built is exit code 1 with nothing written, a walker that fails is exit code 1 with its
// failure recorded; the arguments the job script passes.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/builtin_walkers.h"
#include "trails/core/error.h"
#include "trails/core/temp_dir.h"
#include "trails/engines/builtin/builtin_engine.h"
#include "trails/engines/registry.h"
#include "trails/exec/scheduler/job_files.h"
#include "trails/exec/scheduler/pack_worker.h"
#include "trails/exec/scheduler/task_heartbeat.h"

namespace trails::exec {
namespace {

namespace fs = std::filesystem;
using test_support::builtin_config;
using test_support::expect_same;
using test_support::walkers;

EngineFactory builtin_factory() {
  return [](std::span<const std::uint8_t> setup) { return engines::make_engine_from_setup(setup); };
}

jobs::Pack pack_of(const std::vector<engines::SegmentTask>& tasks) {
  jobs::Pack pack;
  pack.setup.engine_setup =
      engines::worker_engine_setup(builtin_config(), fs::temp_directory_path());
  pack.tasks = tasks;
  return pack;
}

// A pack of `tasks` written to DIR/pack_0.trwf, and the run of it into DIR/results.
PackRun pack_run(const fs::path& dir, const std::vector<engines::SegmentTask>& tasks) {
  jobs::write_pack(dir / "pack_0.trwf", pack_of(tasks));
  PackRun run;
  run.pack = dir / "pack_0.trwf";
  run.results_dir = dir / "results";
  fs::create_directories(run.results_dir);
  return run;
}

// Every task of `tasks` has its result (bitwise the serial reference's) and a success marker
// with the task's digest in `dir`.
void expect_results(const fs::path& dir, const std::vector<engines::SegmentTask>& tasks) {
  engines::builtin::BuiltinEngine engine(builtin_config());
  const auto expected = run_ordered(*make_serial_executor(engine), tasks);
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const auto marker = jobs::read_marker(dir, tasks[i].task_id);
    ASSERT_TRUE(marker.has_value()) << "no marker for task " << tasks[i].task_id;
    EXPECT_TRUE(marker->success);
    EXPECT_EQ(marker->task_id, tasks[i].task_id);
    EXPECT_EQ(marker->digest, jobs::task_digest(tasks[i]));
    const auto result = jobs::read_result(dir, tasks[i].task_id);
    ASSERT_TRUE(result.has_value());
    expect_same(*result, expected[i]);
  }
}

TEST(JobFiles, APackReadsBackAsWritten) {
  const core::TempDir dir("trails-pack");
  engines::builtin::BuiltinEngine engine(builtin_config());
  const auto tasks = walkers(engine, 3, 4);
  const jobs::Pack written = pack_of(tasks);
  jobs::write_pack(dir.path() / "pack_0.trwf", written);
  const jobs::Pack read = jobs::read_pack(dir.path() / "pack_0.trwf");
  EXPECT_EQ(read.setup.engine_setup, written.setup.engine_setup);
  ASSERT_EQ(read.tasks.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(jobs::task_digest(read.tasks[i]), jobs::task_digest(tasks[i]));
  }
  // The digest tells tasks apart: another seed is another task.
  auto other = tasks[0];
  other.seed += 1;
  EXPECT_NE(jobs::task_digest(other), jobs::task_digest(tasks[0]));
  // A damaged pack is a corruption error, not a crash or an empty pack.
  fs::resize_file(dir.path() / "pack_0.trwf", fs::file_size(dir.path() / "pack_0.trwf") / 2);
  EXPECT_THROW(jobs::read_pack(dir.path() / "pack_0.trwf"), core::CorruptionError);
}

TEST(JobFiles, AMarkerIsWrittenAfterItsResultAndRemovedWithIt) {
  const core::TempDir dir("trails-results");
  engines::builtin::BuiltinEngine engine(builtin_config());
  const auto tasks = walkers(engine, 1, 0);
  const auto results = run_ordered(*make_serial_executor(engine), tasks);
  EXPECT_FALSE(jobs::read_marker(dir.path(), 0).has_value());
  jobs::write_result(dir.path(), results[0], jobs::task_digest(tasks[0]));
  ASSERT_TRUE(jobs::read_marker(dir.path(), 0).has_value());
  expect_same(*jobs::read_result(dir.path(), 0), results[0]);
  jobs::remove_result(dir.path(), 0);
  EXPECT_FALSE(jobs::read_marker(dir.path(), 0).has_value());
  EXPECT_FALSE(jobs::read_result(dir.path(), 0).has_value());
}

TEST(PackWorker, BackToBackOnOneInstance) {
  const core::TempDir dir("trails-pack");
  engines::builtin::BuiltinEngine engine(builtin_config());
  const auto tasks = walkers(engine, 4, 2);
  const PackRun run = pack_run(dir.path(), tasks);
  EXPECT_EQ(run_pack(run, builtin_factory()), 0);
  expect_results(run.results_dir, tasks);
}

TEST(PackWorker, PackedOnDevicesThroughScratch) {
  const core::TempDir dir("trails-pack");
  engines::builtin::BuiltinEngine engine(builtin_config());
  const auto tasks = walkers(engine, 5, 1);
  PackRun run = pack_run(dir.path(), tasks);
  run.scratch = dir.path() / "node-local";
  run.placement.devices = {0};  // logical 0 exists unless CUDA_VISIBLE_DEVICES hides every device
  run.placement.workers_per_device = 3;
  EXPECT_EQ(run_pack(run, builtin_factory()), 0);
  expect_results(run.results_dir, tasks);
  // The stage under scratch is removed once its results are copied back.
  EXPECT_TRUE(fs::is_empty(*run.scratch));
}

// A walker the engine refuses fails alone: exit code 1, its marker says it failed and its
// result carries the engine's words (copied back from scratch like the others); the other
// walkers have the serial reference's results; the heartbeat file is gone once the task ends.
TEST(PackWorker, AFailedWalkerIsExitCodeOneWithItsMarkerAndResult) {
  const core::TempDir dir("trails-pack");
  engines::builtin::BuiltinEngine engine(builtin_config());
  auto tasks = walkers(engine, 3, 5);
  tasks[1].steps = 0;  // refused by the engine
  PackRun run = pack_run(dir.path(), tasks);
  run.scratch = dir.path() / "node-local";
  run.heartbeat_period = std::chrono::milliseconds(20);
  EXPECT_EQ(run_pack(run, builtin_factory()), 1);
  const auto marker = jobs::read_marker(run.results_dir, 1);
  ASSERT_TRUE(marker.has_value());
  EXPECT_FALSE(marker->success);
  EXPECT_EQ(marker->digest, jobs::task_digest(tasks[1]));
  const auto failed = jobs::read_result(run.results_dir, 1);
  ASSERT_TRUE(failed.has_value());
  EXPECT_FALSE(failed->ok());
  EXPECT_NE(failed->error.find("steps must be > 0"), std::string::npos) << failed->error;
  expect_results(run.results_dir, {tasks[0], tasks[2]});
  EXPECT_FALSE(fs::exists(heartbeat_path(run.results_dir, run.pack)));
  EXPECT_TRUE(fs::is_empty(*run.scratch));
}

TEST(PackWorker, AnEngineThatCannotBeBuiltIsExitCodeOne) {
  const core::TempDir dir("trails-pack");
  engines::builtin::BuiltinEngine engine(builtin_config());
  const PackRun run = pack_run(dir.path(), walkers(engine, 2, 0));
  const EngineFactory refuses =
      [](std::span<const std::uint8_t>) -> std::unique_ptr<engines::Engine> {
    throw core::EngineError("no engine here");
  };
  EXPECT_EQ(run_pack(run, refuses), 1);
  EXPECT_FALSE(jobs::read_marker(run.results_dir, 0).has_value());
}

TEST(PackWorker, ArgumentsOfTheJobScript) {
  ExecutionOptions back_to_back;
  EXPECT_EQ(pack_worker_arguments(back_to_back, std::chrono::milliseconds(60000)),
            (std::vector<std::string>{"--heartbeat", "60.000"}));
  ExecutionOptions packed;
  packed.devices = {0, 2};
  packed.workers_per_device = 3;
  packed.binding_check = BindingCheck::Fail;
  EXPECT_EQ(pack_worker_arguments(packed, std::chrono::milliseconds(1500)),
            (std::vector<std::string>{"--heartbeat", "1.500", "--devices", "0,2",
                                      "--workers-per-device", "3", "--binding-check", "fail"}));
}

}  // namespace
}  // namespace trails::exec
