// DescendantGuard (exec/process/descendant_guard.h): a watcher that does not start is an error
// naming the program, with the environment untouched; a running guard puts this process in a
// tree, and closing its pipe (what the kernel does when this process dies) ends what the tree
// started, a setsid grandchild included. That a kill -9 of `trails run`/`trails swarm` leaves
// nothing running is tests/scripts/orphaned_walkers.sh.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include <unistd.h>

#include "trails/core/error.h"
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

// The message of the EngineError that making a guard with `program` throws.
std::string guard_error(const std::string& program) {
  try {
    const DescendantGuard guard(program);
  } catch (const core::EngineError& e) {
    return e.what();
  }
  ADD_FAILURE() << "a guard with " << program << " started";
  return {};
}

// Whether `pid` runs (a killed one may stay a zombie until init reaps it).
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, name, state;
  return stat >> pid_field >> name >> state && state != "Z";
}

TEST(DescendantGuard, AWatcherThatCannotRunIsAnErrorNamingIt) {
  const auto before = tree_variable();
  const std::string message = guard_error("/nonexistent/trails");
  EXPECT_NE(message.find("cannot start the guard process `/nonexistent/trails worker "
                         "--guard-tree`"),
            std::string::npos)
      << message;
  EXPECT_EQ(tree_variable(), before);
}

TEST(DescendantGuard, AWatcherThatEndsWithoutWatchingIsAnError) {
  const auto before = tree_variable();
  const std::string message = guard_error("/bin/true");
  EXPECT_NE(message.find("it exited with status 0 without saying that it watches"),
            std::string::npos)
      << message;
  EXPECT_EQ(tree_variable(), before);
}

TEST(DescendantGuard, AWatcherThatSaysSomethingElseIsAnError) {
  // echo prints its arguments, `worker --guard-tree TOKEN`, and exits.
  const std::string message = guard_error("/bin/echo");
  EXPECT_NE(message.find("it said 'worker --guard-tree "), std::string::npos) << message;
}

TEST(DescendantGuard, ItsClosedPipeEndsWhatTheTreeStartedSetsidIncluded) {
  const TreeVariableKept kept;
  pid_t grandchild = 0;
  {
    const DescendantGuard guard(TRAILS_BINARY);
    ASSERT_TRUE(tree_variable().has_value());
    // A child that leaves a setsid grandchild behind and ends: only the tree reaches it.
    const core::ProcessResult started = core::run_process(
        {"/bin/sh", "-c", "setsid sleep 600 < /dev/null > /dev/null 2>&1 & echo $!"});
    ASSERT_TRUE(started.status.ok()) << started.stderr_tail;
    grandchild = static_cast<pid_t>(std::stol(started.stdout_text));
    ASSERT_TRUE(alive(grandchild));
  }  // the guard closes the watcher's pipe, as the kernel does when this process dies
  for (int i = 0; i < 600 && alive(grandchild); ++i) ::usleep(100000);
  const bool survived = alive(grandchild);
  if (survived) ::kill(grandchild, SIGKILL);
  EXPECT_FALSE(survived) << "the setsid grandchild " << grandchild << " outlived the guard";
}

}  // namespace
}  // namespace trails::exec
