// Heartbeats of scheduler array tasks (exec/scheduler/task_heartbeat.h) and the cancel command of
// one array element: the file round trip, the driver's verdicts on its own clock (a counter that
// stands still for heartbeat_timeout, a walker past walker_timeout, a task not yet started),
// and the element ids of SLURM, PBS and Torque.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "support/files.h"
#include "trails/exec/scheduler/scheduler_commands.h"
#include "trails/exec/scheduler/task_heartbeat.h"

namespace trails::exec {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(TaskHeartbeat, WriterBeatsWithTheRunningWalkersAndRemovesItsFile) {
  const auto dir = test_support::fresh_dir();
  const auto file = heartbeat_path(dir, "jobs/pack_a0_c0_3.trwf");
  EXPECT_EQ(file.filename(), "heartbeat_pack_a0_c0_3.json");
  WalkerWatch watch;
  watch.started(12);
  {
    const HeartbeatWriter writer(file, milliseconds(20), watch);
    const auto first = read_heartbeat(file);
    ASSERT_TRUE(first.has_value());
    EXPECT_GE(first->counter, 1U);
    ASSERT_EQ(first->running.size(), 1U);
    EXPECT_EQ(first->running[0].task_id, 12);
    std::optional<Heartbeat> later;
    for (int i = 0; i < 500 && (!later || later->counter <= first->counter); ++i) {
      std::this_thread::sleep_for(milliseconds(10));
      later = read_heartbeat(file);
    }
    ASSERT_TRUE(later.has_value());
    EXPECT_GT(later->counter, first->counter);
  }
  EXPECT_FALSE(std::filesystem::exists(file));
  watch.ended(12);
  EXPECT_TRUE(watch.running().empty());
}

TEST(TaskHeartbeat, JudgeOnTheDriversClock) {
  HeartbeatJudge judge(seconds(10), 100.0);
  const auto t0 = HeartbeatJudge::Clock::now();
  EXPECT_FALSE(judge.verdict(std::nullopt, t0 + seconds(1000)));  // still queued: never judged
  Heartbeat beat{1, 0.0, {{7, 5.0}}};
  EXPECT_FALSE(judge.verdict(beat, t0));
  EXPECT_FALSE(judge.verdict(beat, t0 + seconds(9)));  // same counter, within the limit
  beat.counter = 2;
  EXPECT_FALSE(judge.verdict(beat, t0 + seconds(15)));  // it moved: the clock starts again
  const auto hung = judge.verdict(beat, t0 + seconds(25));
  ASSERT_TRUE(hung.has_value());
  EXPECT_NE(hung->find("heartbeat stopped at count 2"), std::string::npos) << *hung;
  HeartbeatJudge timed(seconds(10), 100.0);
  const auto over = timed.verdict(Heartbeat{1, 0.0, {{7, 5.0}, {9, 101.0}}}, t0);
  ASSERT_TRUE(over.has_value());
  EXPECT_NE(over->find("task 9 has run 101 s, over execution.walker_timeout"), std::string::npos)
      << *over;
}

TEST(TaskHeartbeat, CancelOneArrayElement) {
  EXPECT_EQ(cancel_element_command(SchedulerKind::Slurm, "812", 3),
            (std::vector<std::string>{"scancel", "812_3"}));
  EXPECT_EQ(cancel_element_command(SchedulerKind::Pbs, "1234[].pbs01", 3),
            (std::vector<std::string>{"qdel", "1234[3].pbs01"}));
  EXPECT_EQ(cancel_element_command(SchedulerKind::Torque, "77", 0),
            (std::vector<std::string>{"qdel", "77[0]"}));
}

}  // namespace
}  // namespace trails::exec
