// The command engine's contract (docs/engines.md, "The command engine"): a program that echoes
// the task's start and frames back is read exactly; a failing program, a missing or short
// output and a timeout are failed walkers with the program's stderr; the walker directory is in
// the scratch root and removed (a failed walker's left there), or kept under
// RUN_DIR/walker_files; the task environment.
#include <gtest/gtest.h>

#include <fstream>

#include "support/files.h"
#include "trails/core/error.h"
#include "trails/core/npy.h"
#include "trails/core/temp_dir.h"
#include "trails/engines/command/command_engine.h"
#include "trails/engines/command/task_file.h"

namespace trails::engines::command {
namespace {

namespace fs = std::filesystem;

// A program (python3 + numpy) that writes `frames` frames, each the start plus k·0.5, and its
// final state; `extra` is Python appended at the end (to fail, print, sleep).
fs::path write_program(const fs::path& dir, const std::string& frames, const std::string& extra) {
  const fs::path script = dir / "runseg.py";
  std::ofstream(script)
      << "import json, os, sys\n"
         "import numpy as np\n"
         "t = json.load(open(os.environ['TRAILS_TASK_FILE']))\n"
         "x = np.load(t['start']['positions'])\n"
         "n = "
      << frames
      << "\n"
         "f = np.array([x + 0.5 * (k + 1) for k in range(n)])\n"
         "np.save(t['outputs']['frames_npy'], f)\n"
         "np.save(t['outputs']['final_positions'], f[-1])\n"
         "np.save(t['outputs']['final_velocities'], np.full_like(x, float(t['seed'])))\n"
      << extra << "\n";
  return script;
}

config::CommandSpec point_spec(const fs::path& script, const fs::path& scratch) {
  config::CommandSpec spec;
  spec.command = {"/usr/bin/python3", script.string()};
  spec.start = {0.25, -1.0};
  spec.dt = 0.001;
  spec.files.scratch = scratch;
  return spec;
}

SegmentTask task_of(const Engine& engine, std::int64_t steps = 40, std::int64_t stride = 10) {
  SegmentTask task;
  task.iteration = 2;
  task.walker = 3;
  task.start = engine.default_start();
  task.steps = steps;
  task.stride = stride;
  task.seed = 12345;
  return task;
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

class CommandEngineTest : public ::testing::Test {
 protected:
  core::TempDir tmp{"trails-command-test"};
  fs::path run_dir() const { return tmp.path() / "run"; }
  fs::path scratch() const { return tmp.path() / "scratch"; }
  void SetUp() override {
    fs::create_directories(run_dir());
    fs::create_directories(scratch());
  }
};

TEST_F(CommandEngineTest, ReadsTheProgramsFramesAndFinalStateExactly) {
  const auto script = write_program(tmp.path(), "t['n_frames']", "");
  CommandEngine engine(point_spec(script, scratch()), run_dir());
  EXPECT_FALSE(engine.system().molecular);
  EXPECT_EQ(engine.system().spatial_dim, 2);
  const auto result = engine.make_instance()->run(task_of(engine));
  ASSERT_TRUE(result.ok()) << result.error;
  ASSERT_EQ(result.n_frames, 4);
  ASSERT_EQ(result.frames.size(), 8u);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(result.frames[2 * k], 0.25 + 0.5 * (k + 1));
    EXPECT_EQ(result.frames[2 * k + 1], -1.0 + 0.5 * (k + 1));
  }
  EXPECT_EQ(result.final_state.positions, (std::vector<double>{2.25, 1.0}));
  EXPECT_EQ(result.final_state.velocities, (std::vector<double>{12345.0, 12345.0}));
  EXPECT_EQ(entries(scratch()), 0u) << "the walker directory is removed";
  EXPECT_FALSE(fs::exists(run_dir() / "walker_files"));
}

TEST_F(CommandEngineTest, DropsALeadingStartFrame) {
  const auto script = write_program(tmp.path(), "t['n_frames'] + 1", "");
  CommandEngine engine(point_spec(script, scratch()), run_dir());
  const auto result = engine.make_instance()->run(task_of(engine));
  ASSERT_TRUE(result.ok()) << result.error;
  ASSERT_EQ(result.n_frames, 4);
  EXPECT_EQ(result.frames[0], 0.25 + 1.0);  // the program's first frame was taken as t = 0
}

TEST_F(CommandEngineTest, AFailingProgramIsAFailedWalkerWithItsStderr) {
  const auto script = write_program(tmp.path(), "t['n_frames']",
                                    "print('segment blew up: NaN', file=sys.stderr)\n"
                                    "sys.exit(3)");
  CommandEngine engine(point_spec(script, scratch()), run_dir());
  const auto result = engine.make_instance()->run(task_of(engine));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error.find("walker 3 of iteration 2"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("exited with status 3"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("segment blew up: NaN"), std::string::npos) << result.error;
  EXPECT_TRUE(result.frames.empty());
  // A failed walker's directory stays in scratch (no keep_walker_files), and the error says where.
  ASSERT_EQ(entries(scratch()), 1u);
  const fs::path kept = *fs::directory_iterator(scratch());
  EXPECT_NE(result.error.find("(the walker's files are kept in " + kept.string() + ")"),
            std::string::npos)
      << result.error;
  EXPECT_TRUE(fs::exists(kept / "walker.log")) << kept;
  EXPECT_FALSE(fs::exists(run_dir() / "walker_files"));
}

TEST_F(CommandEngineTest, AShortOutputIsAFailedWalker) {
  const auto script = write_program(tmp.path(), "t['n_frames'] - 2", "");
  CommandEngine engine(point_spec(script, scratch()), run_dir());
  const auto result = engine.make_instance()->run(task_of(engine));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error.find("frames.npy: 2 frames, expected 4"), std::string::npos)
      << result.error;
}

TEST_F(CommandEngineTest, MissingFramesAndFinalStateAreFailedWalkers) {
  const auto script = tmp.path() / "nothing.py";
  std::ofstream(script) << "pass\n";
  CommandEngine engine(point_spec(script, scratch()), run_dir());
  auto result = engine.make_instance()->run(task_of(engine));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error.find("the program wrote no frames"), std::string::npos) << result.error;

  const auto no_final =
      write_program(tmp.path(), "t['n_frames']", "os.remove(t['outputs']['final_positions'])");
  CommandEngine engine2(point_spec(no_final, scratch()), run_dir());
  result = engine2.make_instance()->run(task_of(engine2));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error.find("final_positions.npy: the program did not write it"),
            std::string::npos)
      << result.error;
}

TEST_F(CommandEngineTest, ATimeoutKillsTheProgram) {
  const auto script = write_program(tmp.path(), "t['n_frames']", "import time; time.sleep(30)");
  auto spec = point_spec(script, scratch());
  spec.timeout_s = 0.5;
  CommandEngine engine(spec, run_dir());
  const auto result = engine.make_instance()->run(task_of(engine));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error.find("timed out"), std::string::npos) << result.error;
}

TEST_F(CommandEngineTest, KeepsWalkerFilesWhenAsked) {
  const auto script = write_program(tmp.path(), "t['n_frames']", "print('hello from walker')");
  auto spec = point_spec(script, scratch());
  spec.files.keep_walker_files = true;
  CommandEngine engine(spec, run_dir());
  const auto result = engine.make_instance()->run(task_of(engine));
  ASSERT_TRUE(result.ok()) << result.error;
  const fs::path kept = run_dir() / "walker_files" / "iteration_000002" / "walker_000003";
  for (const char* f : {"task.json", "start_positions.npy", "frames.npy", "walker.log"}) {
    EXPECT_TRUE(fs::exists(kept / f)) << f;
  }
  const std::string text = test_support::read_text(kept / "walker.log");
  EXPECT_NE(text.find("hello from walker"), std::string::npos) << text;
  EXPECT_EQ(entries(scratch()), 0u);
}

TEST_F(CommandEngineTest, TaskEnvironmentNamesEveryValue) {
  CommandEngine engine(point_spec("/bin/true", scratch()), run_dir());
  TaskSystem system;
  system.spatial_dim = 2;
  system.dt = 0.001;
  system.time_unit = "reduced";
  const auto j = write_task_files(task_of(engine), system, tmp.path());
  const auto env = task_environment(j, tmp.path() / "task.json");
  const auto value = [&](const std::string& name) {
    for (const auto& [k, v] : env) {
      if (k == name) return v;
    }
    return std::string("<absent>");
  };
  EXPECT_EQ(value("TRAILS_SEED"), "12345");
  EXPECT_EQ(value("TRAILS_STEPS"), "40");
  EXPECT_EQ(value("TRAILS_N_FRAMES"), "4");
  EXPECT_EQ(value("TRAILS_DT"), "0.001");
  EXPECT_EQ(value("TRAILS_DEVICE"), "");
  EXPECT_EQ(value("TRAILS_START_POSITIONS"), (tmp.path() / "start_positions.npy").string());
  EXPECT_EQ(value("TRAILS_START_VELOCITIES"), "");
  EXPECT_EQ(value("TRAILS_FRAMES_NPY"), (tmp.path() / "frames.npy").string());
  EXPECT_EQ(value("TRAILS_FINAL_POSITIONS"), (tmp.path() / "final_positions.npy").string());
  const auto start = core::read_npy(tmp.path() / "start_positions.npy");
  EXPECT_EQ(start.shape, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(start.float_at(0), 0.25);
}

TEST_F(CommandEngineTest, AProgramNotFoundIsAConfigError) {
  auto spec = point_spec("/bin/true", scratch());
  spec.command = {"no-such-program-trails-test"};
  EXPECT_THROW(CommandEngine(spec, run_dir()), core::ConfigError);
}

}  // namespace
}  // namespace trails::engines::command
