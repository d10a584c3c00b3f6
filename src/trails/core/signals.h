// Stopping `trails run` cleanly on SIGINT, SIGTERM and SIGHUP (docs/reliability.md, "Signals,
// child processes and concurrent runs"). The handler only sets an atomic flag (and says so on
// stderr); the campaign driver checks it between iterations and the subprocess layer while it
// waits on a child, which it then stops (its whole process group) before throwing Interrupted.
// A second signal kills every registered child group and exits at once (128 + signal): the
// store's commit protocol makes that as safe as a crash (docs/architecture.md).
#pragma once

#include <sys/types.h>

#include <exception>
#include <string>
#include <utility>

namespace trails::core {

// Installs the stop handlers (SIGINT, SIGTERM, SIGHUP) and ignores SIGPIPE, so a write to a
// closed pipe fails with EPIPE instead of killing the process. A signal already ignored at
// start (nohup, `cmd &` in a script) stays ignored. For `trails run` only: other commands keep
// the default dispositions.
void install_stop_handlers();

// The first stop signal received, or 0.
int stop_signal() noexcept;
inline bool stop_requested() noexcept { return stop_signal() != 0; }

// Child process groups the second signal kills (the subprocess layer registers each child it
// starts and unregisters it once reaped). Async-signal-safe; a full table is not tracked.
void register_child(pid_t pid) noexcept;
void unregister_child(pid_t pid) noexcept;

// "SIGINT", "SIGTERM", "SIGHUP", or "signal N".
std::string signal_name(int signal);

// Thrown when a stop signal ends work early. Not a core::Error: nothing is wrong, and handlers
// that wrap errors into "walker failed" or "the module failed" must let it pass. `main` maps it
// to exit 128 + signal.
class Interrupted : public std::exception {
 public:
  explicit Interrupted(int signal, std::string message = {}, bool resumable = false)
      : signal_(signal), message_(std::move(message)), resumable_(resumable) {
    if (message_.empty()) message_ = "interrupted by " + signal_name(signal_);
  }
  const char* what() const noexcept override { return message_.c_str(); }
  int signal() const noexcept { return signal_; }
  int exit_code() const noexcept { return 128 + signal_; }
  // A run directory holds committed state that `--resume` continues.
  bool resumable() const noexcept { return resumable_; }

 private:
  int signal_;
  std::string message_;
  bool resumable_;
};

// Throws Interrupted when a stop signal was received.
void throw_if_stop_requested();

}  // namespace trails::core
