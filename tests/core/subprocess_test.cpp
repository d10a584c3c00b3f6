// core::run_process and core::ChildProcess with real /bin/sh children: exit codes and signal
// names, timeouts that kill the child's process group, the bounded stderr tail, output larger
// than a pipe buffer in both directions, argv passed verbatim, environment edits, the working
// directory, and the long-lived child's request/reply, death and clean-up.
#include "trails/core/subprocess.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "trails/core/error.h"
#include "trails/core/process_tree.h"
#include "trails/core/python.h"

namespace trails::core {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

ProcessResult sh(const std::string& script, ProcessOptions options = {}) {
  return run_process({"/bin/sh", "-c", script}, options);
}

// Running or stopped; a zombie (dead, not yet reaped by its new parent) counts as dead.
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

TEST(Subprocess, ExitStatusAndStreams) {
  const auto r = sh("echo out; echo err >&2; exit 3");
  EXPECT_EQ(r.status.kind, ExitStatus::Kind::Exited);
  EXPECT_EQ(r.status.code, 3);
  EXPECT_FALSE(r.status.ok());
  EXPECT_TRUE(r.status.exited_with(3));
  EXPECT_EQ(r.status.describe(), "exited with status 3");
  EXPECT_EQ(r.stdout_text, "out\n");
  EXPECT_EQ(r.stderr_tail, "err\n");
  EXPECT_TRUE(sh("true").status.ok());
}

TEST(Subprocess, SignalIsNamed) {
  const auto r = sh("kill -SEGV $$");
  EXPECT_EQ(r.status.kind, ExitStatus::Kind::Signaled);
  EXPECT_EQ(r.status.code, SIGSEGV);
  EXPECT_EQ(r.status.describe(), "killed by signal 11 (SIGSEGV)");
  const auto k = sh("kill -KILL $$");
  EXPECT_EQ(k.status.describe(), "killed by signal 9 (SIGKILL)");
}

TEST(Subprocess, TimeoutKillsTheProcessGroup) {
  const fs::path pid_file = fs::path(::testing::TempDir()) / "grandchild.pid";
  fs::remove(pid_file);
  ProcessOptions o;
  o.timeout = milliseconds(300);
  o.kill_grace = milliseconds(200);
  // The grandchild ignores nothing: SIGTERM to the group ends both.
  const auto r = sh("sleep 30 & echo $! > '" + pid_file.string() + "'; wait", o);
  EXPECT_TRUE(r.status.timed_out);
  EXPECT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.describe(milliseconds(300)),
            "timed out after 0.3 s and was stopped (killed by signal 15 (SIGTERM))");
  std::ifstream in(pid_file);
  pid_t grandchild = 0;
  ASSERT_TRUE(in >> grandchild);
  for (int i = 0; i < 100 && alive(grandchild); ++i) std::this_thread::sleep_for(milliseconds(10));
  EXPECT_FALSE(alive(grandchild)) << "the grandchild outlived the timeout";
}

TEST(Subprocess, TimeoutEscalatesToSigkill) {
  ProcessOptions o;
  o.timeout = milliseconds(200);
  o.kill_grace = milliseconds(200);
  const auto r = sh("trap '' TERM; while :; do :; done", o);
  EXPECT_TRUE(r.status.timed_out);
  EXPECT_EQ(r.status.kind, ExitStatus::Kind::Signaled);
  EXPECT_EQ(r.status.code, SIGKILL);
}

TEST(Subprocess, StderrTailIsBounded) {
  ProcessOptions o;
  o.stderr_tail_bytes = 100;
  const auto r = sh("i=0; while [ $i -lt 1000 ]; do echo line$i >&2; i=$((i+1)); done; exit 1", o);
  EXPECT_TRUE(r.stderr_truncated);
  EXPECT_EQ(r.stderr_tail.size(), 100u);
  EXPECT_NE(r.stderr_tail.find("line999\n"), std::string::npos);
  const std::string msg = describe_failure({"/bin/sh"}, r);
  EXPECT_EQ(msg.rfind("'/bin/sh' exited with status 1:\n    ...\n", 0), 0u) << msg;
  EXPECT_NE(msg.find("    line999"), std::string::npos) << msg;
}

TEST(Subprocess, BigOutputAndInputDoNotDeadlock) {
  // 4 MB each way, and 1 MB on stderr, far above the 64 kB pipe buffers.
  ProcessOptions o;
  o.stdin_data = std::string(4 << 20, 'x');
  o.stderr_tail_bytes = 16;
  const auto r = sh("head -c 1048576 /dev/zero >&2; cat", o);
  ASSERT_TRUE(r.status.ok()) << r.status.describe();
  EXPECT_EQ(r.stdout_text, *o.stdin_data);
  EXPECT_EQ(r.stderr_tail, std::string(16, '\0'));
}

TEST(Subprocess, ChildThatIgnoresStdinDoesNotKillUs) {
  ProcessOptions o;
  o.stdin_data = std::string(1 << 20, 'y');  // the reader is gone: EPIPE, not SIGPIPE
  const auto r = sh("exec 0<&-; exit 4", o);
  EXPECT_TRUE(r.status.exited_with(4)) << r.status.describe();
}

TEST(Subprocess, ArgumentsArriveVerbatim) {
  const std::vector<std::string> args = {"a b", "it's", "\"q\"", "$HOME", "*", "", "back\\slash"};
  std::vector<std::string> argv = {"/bin/sh", "-c",
                                   "for a in \"$@\"; do printf '[%s]\\n' \"$a\"; done", "sh"};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto r = run_process(argv);
  ASSERT_TRUE(r.status.ok());
  std::string expected;
  for (const auto& a : args) expected += "[" + a + "]\n";
  EXPECT_EQ(r.stdout_text, expected);
}

TEST(Subprocess, EnvironmentAndWorkingDirectory) {
  ::setenv("TRAILS_SUBPROCESS_TEST_GONE", "1", 1);
  ProcessOptions o;
  o.set_env = {{"TRAILS_SUBPROCESS_TEST_SET", "v a l"}};
  o.unset_env = {"TRAILS_SUBPROCESS_TEST_GONE"};
  o.working_directory = fs::temp_directory_path();
  const auto r =
      sh("echo \"$TRAILS_SUBPROCESS_TEST_SET|${TRAILS_SUBPROCESS_TEST_GONE-unset}|$(pwd -P)\"", o);
  EXPECT_EQ(r.stdout_text,
            "v a l|unset|" + fs::canonical(fs::temp_directory_path()).string() + "\n");
  ::unsetenv("TRAILS_SUBPROCESS_TEST_GONE");
}

TEST(Subprocess, MissingProgramIsAnInputError) {
  try {
    run_process({"trails-no-such-program-xyz", "--version"});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot run 'trails-no-such-program-xyz'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(run_process({"/nonexistent/prog"}), InputError);
}

TEST(ChildProcess, RequestReplyKeepsState) {
  // A counter that answers each line with its number and the line; stderr is collected.
  ChildProcess child(
      {"/bin/sh", "-c",
       "n=0; while read -r l; do n=$((n+1)); echo \"note $n\" >&2; echo \"$n:$l\"; done"});
  EXPECT_EQ(child.request("hello world"), "1:hello world");
  EXPECT_EQ(child.request("x"), "2:x");
  EXPECT_TRUE(child.running());
  EXPECT_TRUE(child.terminate().exited_with(0));  // EOF on stdin ends the loop
  EXPECT_NE(child.stderr_tail().find("note 2"), std::string::npos) << child.stderr_tail();
}

TEST(ChildProcess, DeathIsReportedWithItsSignal) {
  ChildProcess child({"/bin/sh", "-c", "read -r l; echo dying >&2; kill -ABRT $$"});
  EXPECT_EQ(child.request("go"), std::nullopt);
  EXPECT_FALSE(child.running());
  EXPECT_EQ(child.status().describe(), "killed by signal 6 (SIGABRT)");
  EXPECT_NE(child.stderr_tail().find("dying"), std::string::npos);
  EXPECT_EQ(child.request("again"), std::nullopt);
}

TEST(ChildProcess, KilledBetweenRequests) {
  ChildProcess child({"/bin/sh", "-c", "while read -r l; do echo \"$l\"; done"});
  EXPECT_EQ(child.request("a"), "a");
  ::kill(child.pid(), SIGKILL);
  EXPECT_EQ(child.request("b"), std::nullopt);
  EXPECT_EQ(child.status().describe(), "killed by signal 9 (SIGKILL)");
}

TEST(ChildProcess, RequestTimeout) {
  ProcessOptions o;
  o.kill_grace = milliseconds(200);
  ChildProcess child({"/bin/sh", "-c", "read -r l; sleep 30"}, o);
  EXPECT_EQ(child.request("x", milliseconds(200)), std::nullopt);
  EXPECT_TRUE(child.status().timed_out);
  EXPECT_FALSE(child.running());
}

TEST(ChildProcess, DestructorLeavesNoOrphan) {
  pid_t pid = 0;
  {
    ProcessOptions o;
    o.kill_grace = milliseconds(200);
    ChildProcess child({"/bin/sh", "-c", "trap '' TERM; while :; do sleep 1; done"}, o);
    pid = child.pid();
    EXPECT_TRUE(alive(pid));
  }
  EXPECT_FALSE(alive(pid));  // reaped, so not even a zombie
}

// A long-lived child in a tree of its own (core/process_tree.h, as a `trails worker` is): its
// setsid grandchildren outlive terminate(), which ends only its process group, and
// end_process_tree ends them, also one in a nested tree (OUTER:INNER, as a segment program the
// worker starts carries).
TEST(ProcessTree, NestedTreesEndWithTheOuterOne) {
  ProcessOptions o;
  o.kill_grace = milliseconds(200);
  const std::string token = join_process_tree(o);
  ChildProcess child({"/bin/sh", "-c",
                      "setsid sleep 600 < /dev/null > /dev/null 2>&1 & echo $!; "
                      "TRAILS_PROCESS_TREE=\"$TRAILS_PROCESS_TREE:inner-1\" "
                      "setsid sleep 600 < /dev/null > /dev/null 2>&1 & echo $!; exec sleep 600"},
                     o);
  std::string pids;
  while (std::count(pids.begin(), pids.end(), '\n') < 2) {
    ASSERT_EQ(child.read_bytes(pids, std::chrono::steady_clock::now() + std::chrono::seconds(10)),
              ChildProcess::Read::Data);
  }
  const pid_t plain = std::stoi(pids), nested = std::stoi(pids.substr(pids.find('\n') + 1));
  child.terminate();
  EXPECT_TRUE(alive(plain));
  EXPECT_TRUE(alive(nested));
  EXPECT_EQ(end_process_tree(token), 2);
  for (int i = 0; i < 100 && (alive(plain) || alive(nested)); ++i)
    std::this_thread::sleep_for(milliseconds(20));
  EXPECT_FALSE(alive(plain));
  EXPECT_FALSE(alive(nested));
  EXPECT_EQ(end_process_tree(token), 0);
}

TEST(Python, InterpreterPrecedenceAndEnvironment) {
  ::unsetenv("TRAILS_PYTHON");
  const auto d = resolve_python(std::nullopt);
  EXPECT_EQ(d.program, "/usr/bin/python3");
  EXPECT_FALSE(d.keep_pythonpath);
  ProcessOptions o;
  d.apply(o);
  EXPECT_EQ(o.unset_env, (std::vector<std::string>{"PYTHONPATH", "PYTHONHOME"}));
  EXPECT_EQ(d.describe(), "/usr/bin/python3 (default; PYTHONPATH and PYTHONHOME cleared)");

  ::setenv("TRAILS_PYTHON", "/opt/py/bin/python", 1);
  const auto e = resolve_python(std::string());
  EXPECT_EQ(e.program, "/opt/py/bin/python");
  EXPECT_EQ(e.source, "TRAILS_PYTHON");
  EXPECT_TRUE(e.keep_pythonpath);
  ProcessOptions oe;
  e.apply(oe);
  EXPECT_TRUE(oe.unset_env.empty());
  const auto c = resolve_python(std::string("python3.11"));
  EXPECT_EQ(c.program, "python3.11");
  EXPECT_EQ(c.source, "engine.python");
  EXPECT_EQ(c.describe(), "python3.11 (engine.python)");
  ::unsetenv("TRAILS_PYTHON");
}

}  // namespace
}  // namespace trails::core
