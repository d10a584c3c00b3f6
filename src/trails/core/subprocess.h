// Running other programs: an argument vector handed to posix_spawn (no shell, so spaces and
// quotes in arguments arrive verbatim), environment edits, a working directory, optional stdin
// data, captured stdout and a bounded stderr tail, a timeout that kills the child's process
// group (SIGTERM, then SIGKILL), and an exit status decoded into words. Used for system
// preparation, the project-file worker and gnuplot (docs/architecture.md, "Subprocesses").
// Threads: each object is used by one thread at a time; different objects are independent.
// Failure to start the program throws InputError naming it; a child that fails is a result.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trails::core {

// How a child ended.
struct ExitStatus {
  enum class Kind { Exited, Signaled };
  Kind kind = Kind::Exited;
  int code = 0;            // exit status (Exited) or signal number (Signaled)
  bool timed_out = false;  // Trails killed it because its time limit passed

  bool ok() const { return kind == Kind::Exited && code == 0 && !timed_out; }
  bool exited_with(int status) const {
    return kind == Kind::Exited && code == status && !timed_out;
  }
  // "exited with status 3", "killed by signal 11 (SIGSEGV)", "timed out after 5 s and was
  // killed by signal 15 (SIGTERM)" (the last needs the limit: describe(limit)).
  std::string describe(std::optional<std::chrono::milliseconds> limit = std::nullopt) const;
  static ExitStatus from_wait_status(int wait_status);
};

struct ProcessOptions {
  std::vector<std::pair<std::string, std::string>> set_env;  // added or replaced
  std::vector<std::string> unset_env;                        // removed (after set_env)
  std::optional<std::filesystem::path> working_directory;
  std::optional<std::string> stdin_data;  // none: the child reads /dev/null
  std::optional<std::chrono::milliseconds> timeout;
  std::chrono::milliseconds kill_grace{2000};  // SIGTERM → SIGKILL delay after a timeout
  std::size_t stdout_limit = 64u << 20;        // bytes of stdout kept (the tail beyond)
  std::size_t stderr_tail_bytes = 8192;        // bytes of stderr kept (the tail)
  // A stop signal (core/signals.h) ends the child's process group and throws Interrupted; for
  // work that is redone anyway (system preparation). Otherwise the child is waited for.
  bool interruptible = false;
  // Ends the child's whole process tree when it ends, times out or is interrupted: every
  // process that inherited the child's TRAILS_PROCESS_TREE environment token, so also those
  // that left its process group or session (setsid) (docs/reliability.md, "Signals, child
  // processes and concurrent runs"). For programs a user supplies (segment programs).
  bool end_descendants = false;
};

// SIGKILLs every process (of this user) whose environment holds TRAILS_PROCESS_TREE=token,
// until none is left; returns how many were killed.
int end_process_tree(const std::string& token);

struct ProcessResult {
  ExitStatus status;
  std::string stdout_text;  // all of it up to stdout_limit (then its tail)
  std::string stderr_tail;  // the last stderr_tail_bytes
  bool stderr_truncated = false;
};

// Runs argv[0] (looked up in PATH when it has no '/') to completion. Throws InputError when it
// cannot be started ("cannot run 'gnuplot': No such file or directory"), Interrupted when
// options.interruptible and a stop signal arrives first (the child's group is killed and reaped).
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// "'/usr/bin/python3' exited with status 1:\n    <stderr tail, indented>" for error messages.
std::string describe_failure(const std::vector<std::string>& argv, const ProcessResult& result,
                             std::optional<std::chrono::milliseconds> limit = std::nullopt);

// Indents every line of `text` by four spaces (for tails inside error messages).
std::string indent_lines(std::string_view text);

// A long-lived child talking over pipes: requests are written to its stdin, each reply is one
// '\n'-terminated line on its stdout (request()), or a binary protocol of the caller's
// (write_bytes / read_bytes); its stderr is collected (bounded) all the while. The
// child gets its own process group; the destructor (or terminate()) ends the whole group, so
// no child outlives its owner, and a killed owner leaves the child reading EOF on stdin.
class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& argv, const ProcessOptions& options = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }

  // Writes `request` (a '\n' is appended) and returns the next reply line without its '\n'.
  // nullopt when the child closed its stdout or died first (then status() tells how); a
  // timeout terminates the child and returns nullopt with status().timed_out set.
  std::optional<std::string> request(
      std::string_view request, std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  // Binary use: writes all of `data` to the child's stdin; false when the child closed it (or
  // died) or the deadline passed first.
  bool write_bytes(std::string_view data,
                   std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);
  enum class Read { Data, Closed, TimedOut };
  // Appends what the child wrote to stdout (at least one byte: Data), waiting until the child
  // closes its stdout (Closed) or the deadline passes (TimedOut).
  Read read_bytes(std::string& sink,
                  std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);
  // After the child closed its stdout: collects its last stderr and reaps it (terminating it
  // when it does not exit within kill_grace); returns how it ended.
  ExitStatus finish();

  // Whether the child has not been reaped yet (reaps it when it has exited).
  bool running();
  // SIGTERM to the group, SIGKILL after kill_grace, reaps; idempotent.
  ExitStatus terminate();
  // Status after the child ended (valid once running() is false or terminate() returned).
  const ExitStatus& status() const { return status_; }

  std::string stderr_tail() const;
  // The stderr received since the last call (bounded like the tail), for debug logs.
  std::string take_new_stderr();

 private:
  bool pump(std::string_view to_write,
            std::optional<std::chrono::steady_clock::time_point> deadline);
  bool poll_once(std::string_view to_write, std::size_t* written,
                 std::optional<std::chrono::steady_clock::time_point> deadline);
  void reap_blocking();
  void on_stderr(std::string_view data);

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  bool reaped_ = false;
  ExitStatus status_;
  std::string stdout_buffer_;
  std::string stderr_tail_;
  std::string stderr_new_;
  std::size_t stderr_limit_;
  std::chrono::milliseconds kill_grace_;
};

}  // namespace trails::core
