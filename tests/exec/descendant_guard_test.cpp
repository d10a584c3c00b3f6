// DescendantGuard (exec/process/descendant_guard.h): the forked watcher holds none of this
// process's descriptors and has a process group of its own; a guard puts
// this process in a tree, and closing its pipe (what the kernel does when this process dies)
// ends what the tree started, a setsid grandchild included. That a kill -9 of `trails run`/`trails
// swarm` leaves nothing running is tests/scripts/orphaned_walkers.sh.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "trails/core/subprocess.h"
#include "trails/exec/process/descendant_guard.h"

namespace trails::exec {
namespace {

constexpr const char* kTree = "TRAILS_PROCESS_TREE";

std::optional<std::string> tree_variable() {
  const char* value = std::getenv(kTree);
  return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
}

// Restores TRAILS_PROCESS_TREE when a test that made a guard ends.
struct TreeVariableKept {
  std::optional<std::string> before = tree_variable();
  ~TreeVariableKept() {
    if (before)
      ::setenv(kTree, before->c_str(), 1);
    else
      ::unsetenv(kTree);
  }
};

// The program name of `pid` (/proc/PID/comm), or "" once it is gone.
std::string comm(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

// Whether `pid` runs (a killed one may stay a zombie until init reaps it).
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, name, state;
  return stat >> pid_field >> name >> state && state != "Z";
}

// The watcher keeps none of this process's descriptors but its own pipe: a pipe whose write end
// this process closes reaches end-of-file while the watcher runs (a caller reading trails'
// output to its end, or a run-directory lock, is not held by the guard), and the programs this
// process starts do not hold the guard's pipe either.
TEST(DescendantGuard, TheWatcherHoldsNoDescriptorOfThisProcess) {
  const TreeVariableKept kept;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const DescendantGuard guard;
  ASSERT_GT(guard.watcher_pid(), 0);
  ASSERT_TRUE(alive(guard.watcher_pid()));
  ::close(fds[1]);
  char c = 0;
  EXPECT_EQ(::read(fds[0], &c, 1), 0) << "the watcher holds the write end of the caller's pipe";
  ::close(fds[0]);
  const std::string fd_dir = "/proc/" + std::to_string(guard.watcher_pid()) + "/fd";
  std::vector<std::string> open;
  for (const auto& entry : std::filesystem::directory_iterator(fd_dir))
    open.push_back(entry.path().filename().string());
  std::sort(open.begin(), open.end());
  EXPECT_EQ(open, (std::vector<std::string>{"0", "1", "2"}));
}

// A guard's watcher leaves this process's group: a Ctrl-C or a kill of the driver's group does
// not end it before it has ended the tree.
TEST(DescendantGuard, TheWatcherHasAProcessGroupOfItsOwn) {
  const TreeVariableKept kept;
  const DescendantGuard guard;
  const pid_t watcher = guard.watcher_pid();
  for (int i = 0; i < 100 && ::getpgid(watcher) != watcher; ++i) ::usleep(10000);
  EXPECT_EQ(::getpgid(watcher), watcher);
  EXPECT_NE(::getpgid(watcher), ::getpgid(0));
}

TEST(DescendantGuard, ItsClosedPipeEndsWhatTheTreeStartedSetsidIncluded) {
  const TreeVariableKept kept;
  pid_t grandchild = 0;
  {
    const DescendantGuard guard;
    ASSERT_TRUE(tree_variable().has_value());
    // A child that leaves a setsid grandchild behind and ends: only the tree reaches it.
    const core::ProcessResult started = core::run_process(
        {"/bin/sh", "-c", "setsid sleep 600 < /dev/null > /dev/null 2>&1 & echo $!"});
    ASSERT_TRUE(started.status.ok()) << started.stderr_tail;
    grandchild = static_cast<pid_t>(std::stol(started.stdout_text));
    // Once it runs sleep: not in the instant of an execve, when its environment reads empty.
    for (int i = 0; i < 600 && comm(grandchild) != "sleep"; ++i) ::usleep(10000);
    ASSERT_EQ(comm(grandchild), "sleep");
    ASSERT_TRUE(alive(grandchild));
  }  // the guard closes the watcher's pipe, as the kernel does when this process dies
  for (int i = 0; i < 600 && alive(grandchild); ++i) ::usleep(100000);
  const bool survived = alive(grandchild);
  if (survived) ::kill(grandchild, SIGKILL);
  EXPECT_FALSE(survived) << "the setsid grandchild " << grandchild << " outlived the guard";
}

}  // namespace
}  // namespace trails::exec
