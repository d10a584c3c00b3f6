// Internal to core's subprocess layer (subprocess.cpp, child_process.cpp; nobody else includes
// it): pipes, posix_spawn with Trails' child settings (own process group, default signal
// dispositions, the environment edits), waiting and killing with a grace period, and the
// non-blocking read/write steps of the poll loops. Errors: InputError when a program cannot start.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trails/core/subprocess.h"

namespace trails::core::detail {

using Clock = std::chrono::steady_clock;

// Keeps the last `limit` bytes of a stream; sets *truncated (when given) once bytes are dropped.
void append_tail(std::string& buffer, std::string_view data, std::size_t limit, bool* truncated);

// A write to a pipe whose reader is gone must fail with EPIPE, not kill Trails with SIGPIPE:
// SIGPIPE is blocked in this thread while the guard lives and a SIGPIPE it caused is consumed.
class SigpipeGuard {
 public:
  SigpipeGuard();
  ~SigpipeGuard();
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t pipe_set_{};
  sigset_t old_{};
  bool was_pending_ = false;
};

struct Pipe {
  int read = -1;
  int write = -1;
};

Pipe make_pipe();
void close_fd(int& fd);

// Starts argv with stdin from `in` (or /dev/null when in < 0) and stdout/stderr to the given
// fds, in a new process group with default signal dispositions. Throws InputError.
pid_t spawn(const std::vector<std::string>& argv, const ProcessOptions& options, int in, int out,
            int err);

// The parent's ends of a child started by spawn_piped: stdin (-1 without one), stdout, stderr.
struct PipedChild {
  pid_t pid = -1;
  int in = -1;
  int out = -1;
  int err = -1;
};

// spawn() with stdout and stderr (and stdin when with_stdin) on fresh pipes; the child's ends are
// closed here, and every fd is closed again if the start fails (then it rethrows).
PipedChild spawn_piped(const std::vector<std::string>& argv, const ProcessOptions& options,
                       bool with_stdin);

// Waits up to `limit` for the child to exit; true (and *wait_status) once reaped.
bool wait_for(pid_t pid, std::chrono::milliseconds limit, int* wait_status);

// SIGTERM to the child's group, SIGKILL after `grace`; returns the reaped wait status.
int kill_group(pid_t pid, std::chrono::milliseconds grace);

// Milliseconds poll() may wait: up to cap_ms, less when the deadline is nearer.
int poll_timeout_ms(std::optional<Clock::time_point> deadline, int cap_ms);

// Reads what is available on fd into `sink`; closes fd at EOF or error.
template <typename Sink>
void drain(int& fd, Sink&& sink) {
  char buffer[65536];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n > 0) {
    sink(std::string_view(buffer, static_cast<std::size_t>(n)));
  } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
    close_fd(fd);
  }
}

// Writes as much of data[*offset..] as the pipe takes; closes fd when done or the reader left.
void feed(int& fd, std::string_view data, std::size_t* offset);

}  // namespace trails::core::detail
