// DescendantGuard (descendant_guard.h).
#include "trails/exec/process/descendant_guard.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/process_tree.h"
#include "trails/core/subprocess.h"

namespace trails::exec {
namespace {

// The watcher, in the forked child: only the pipe's read end is kept (on stdin; every other
// descriptor of the parent is closed, so a run-directory lock or a pipe a caller reads to its
// end is not held past the parent), stdout and stderr go to /dev/null, and it leaves the
// parent's process group, so terminal and group signals meant for the driver do not reach it.
// It ignores SIGINT, SIGTERM and SIGHUP: only the closed pipe (or SIGKILL) ends it. Never
// returns.
[[noreturn]] void watch(int read_end, const std::string& token) {
  ::setpgid(0, 0);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) std::signal(sig, SIG_IGN);
  if (::dup2(read_end, STDIN_FILENO) < 0) ::_exit(1);
  const int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) {
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
  }
  ::close_range(3, ~0U, 0);
  char buffer[256];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  // A process in the middle of an execve shows an empty environment for an instant, and a scan
  // that finds nothing ends: one more scan a moment later catches a descendant that was
  // exec'ing a program (a walker's `setsid sleep` found on the PATH) during the first.
  core::end_process_tree(token);
  ::usleep(50000);
  core::end_process_tree(token);
  ::_exit(0);
}

}  // namespace

DescendantGuard::DescendantGuard() {
  core::ProcessOptions joined;
  const std::string token = core::join_process_tree(joined);
  const auto failed = [](const char* what) {
    return core::EngineError(fmt::format(
        "cannot start the guard process that ends every program of this run if trails itself "
        "is killed (docs/execution.md, \"No walker outlives its driver\"): {}: {}",
        what, std::strerror(errno)));
  };
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw failed("pipe");
  // Forked before the environment names the tree, so the watcher is no member of it.
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int saved = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    errno = saved;
    throw failed("fork");
  }
  if (pid == 0) watch(fds[0], token);
  ::close(fds[0]);
  watcher_ = pid;
  pipe_ = fds[1];
  const auto& [name, value] = joined.set_env.back();
  TRAILS_CHECK(::setenv(name.c_str(), value.c_str(), 1) == 0, "setenv of the process tree");
}

DescendantGuard::~DescendantGuard() {
  ::close(pipe_);
  while (::waitpid(watcher_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace trails::exec
