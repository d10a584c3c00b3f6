#include "trails/core/subprocess.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <thread>

#include "trails/core/error.h"

extern char** environ;

namespace trails::core {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Keeps the last `limit` bytes of a stream.
void append_tail(std::string& buffer, std::string_view data, std::size_t limit, bool* truncated) {
  buffer.append(data);
  if (buffer.size() > limit) {
    buffer.erase(0, buffer.size() - limit);
    if (truncated != nullptr) *truncated = true;
  }
}

// A write to a pipe whose reader is gone must fail with EPIPE, not kill Trails with SIGPIPE:
// SIGPIPE is blocked in this thread while the guard lives and a SIGPIPE it caused is consumed.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigemptyset(&pipe_set_);
    sigaddset(&pipe_set_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set_, &old_);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  }
  ~SigpipeGuard() {
    sigset_t pending;
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
      const timespec zero{0, 0};
      sigtimedwait(&pipe_set_, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
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

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw InputError(std::string("cannot create a pipe for a child process: ") +
                     std::strerror(errno));
  }
  return {fds[0], fds[1]};
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::vector<std::string> child_environment(const ProcessOptions& options) {
  std::vector<std::string> env;
  const auto key_of = [](std::string_view entry) { return entry.substr(0, entry.find('=')); };
  const auto edited = [&](std::string_view key) {
    for (const auto& [k, v] : options.set_env) {
      if (k == key) return true;
    }
    for (const auto& k : options.unset_env) {
      if (k == key) return true;
    }
    return false;
  };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (!edited(key_of(*e))) env.emplace_back(*e);
  }
  for (const auto& [k, v] : options.set_env) {
    bool unset = false;
    for (const auto& u : options.unset_env) unset = unset || u == k;
    if (!unset) env.push_back(k + "=" + v);
  }
  return env;
}

// Starts argv with stdin from `in` (or /dev/null when in < 0) and stdout/stderr to the given
// fds, in a new process group with default signal dispositions. Throws InputError.
pid_t spawn(const std::vector<std::string>& argv, const ProcessOptions& options, int in, int out,
            int err) {
  if (argv.empty() || argv[0].empty()) throw InternalError("run_process: empty argument vector");
  std::vector<std::string> env = child_environment(options);
  std::vector<char*> argp, envp;
  for (const auto& a : argv) argp.push_back(const_cast<char*>(a.c_str()));
  argp.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (in >= 0) {
    posix_spawn_file_actions_adddup2(&actions, in, 0);
  } else {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
  if (options.working_directory) {
    posix_spawn_file_actions_addchdir_np(&actions, options.working_directory->c_str());
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (const int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const bool search_path = argv[0].find('/') == std::string::npos;
  const int rc =
      search_path ? ::posix_spawnp(&pid, argv[0].c_str(), &actions, &attr, argp.data(), envp.data())
                  : ::posix_spawn(&pid, argv[0].c_str(), &actions, &attr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    std::string where;
    if (options.working_directory) where = " in " + options.working_directory->string();
    throw InputError(fmt::format("cannot run '{}'{}: {}", argv[0], where, std::strerror(rc)));
  }
  return pid;
}

// Waits up to `limit` for the child to exit; true (and *wait_status) once reaped.
bool wait_for(pid_t pid, milliseconds limit, int* wait_status) {
  const auto until = Clock::now() + limit;
  while (true) {
    const pid_t r = ::waitpid(pid, wait_status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return true;
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
}

// SIGTERM to the child's group, SIGKILL after `grace`; returns the reaped wait status.
int kill_group(pid_t pid, milliseconds grace) {
  int wait_status = 0;
  ::kill(-pid, SIGTERM);
  if (wait_for(pid, grace, &wait_status)) return wait_status;
  ::kill(-pid, SIGKILL);
  while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  return wait_status;
}

int poll_timeout_ms(std::optional<Clock::time_point> deadline, int cap_ms) {
  if (!deadline) return cap_ms;
  const auto left = std::chrono::duration_cast<milliseconds>(*deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, cap_ms));
}

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
void feed(int& fd, std::string_view data, std::size_t* offset) {
  const SigpipeGuard guard;
  const ssize_t n = ::write(fd, data.data() + *offset, data.size() - *offset);
  if (n > 0) *offset += static_cast<std::size_t>(n);
  if ((n < 0 && errno != EAGAIN && errno != EINTR) || *offset == data.size()) close_fd(fd);
}

}  // namespace

ExitStatus ExitStatus::from_wait_status(int wait_status) {
  ExitStatus s;
  if (WIFSIGNALED(wait_status)) {
    s.kind = Kind::Signaled;
    s.code = WTERMSIG(wait_status);
  } else {
    s.code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  }
  return s;
}

std::string ExitStatus::describe(std::optional<milliseconds> limit) const {
  std::string text;
  if (kind == Kind::Signaled) {
    const char* abbrev = ::sigabbrev_np(code);
    text = fmt::format("killed by signal {} (SIG{})", code, abbrev != nullptr ? abbrev : "?");
  } else {
    text = fmt::format("exited with status {}", code);
  }
  if (!timed_out) return text;
  const std::string after =
      limit ? fmt::format(" after {:g} s", static_cast<double>(limit->count()) / 1000.0) : "";
  return fmt::format("timed out{} and was stopped ({})", after, text);
}

std::string indent_lines(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::string out = "    ";
  for (const char c : text) {
    out += c;
    if (c == '\n') out += "    ";
  }
  return out;
}

std::string describe_failure(const std::vector<std::string>& argv, const ProcessResult& result,
                             std::optional<milliseconds> limit) {
  std::string text =
      fmt::format("'{}' {}", argv.empty() ? "" : argv[0], result.status.describe(limit));
  std::string_view tail = result.stderr_tail;
  while (!tail.empty() && std::isspace(static_cast<unsigned char>(tail.back())))
    tail.remove_suffix(1);
  if (!tail.empty()) {
    text += result.stderr_truncated ? ":\n    ...\n" : ":\n";
    text += indent_lines(tail);
  }
  return text;
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  Pipe in;
  if (options.stdin_data) in = make_pipe();
  Pipe out = make_pipe();
  Pipe err = make_pipe();
  pid_t pid = -1;
  try {
    pid = spawn(argv, options, in.read, out.write, err.write);
  } catch (...) {
    for (int* fd : {&in.read, &in.write, &out.read, &out.write, &err.read, &err.write})
      close_fd(*fd);
    throw;
  }
  close_fd(in.read);
  close_fd(out.write);
  close_fd(err.write);
  if (in.write >= 0) ::fcntl(in.write, F_SETFL, O_NONBLOCK);

  ProcessResult result;
  std::optional<Clock::time_point> deadline;
  if (options.timeout) deadline = Clock::now() + *options.timeout;
  std::size_t written = 0;
  int wait_status = 0;
  bool reaped = false;
  std::optional<Clock::time_point> reaped_at;  // a grandchild may keep our pipes open
  while (out.read >= 0 || err.read >= 0 || in.write >= 0) {
    if (deadline && Clock::now() >= *deadline && !reaped) {
      wait_status = kill_group(pid, options.kill_grace);
      result.status.timed_out = true;
      reaped = true;
      break;
    }
    if (reaped_at && Clock::now() - *reaped_at > milliseconds(500)) break;
    pollfd fds[3];
    nfds_t n = 0;
    for (const auto& [fd, events] :
         {std::pair{out.read, POLLIN}, std::pair{err.read, POLLIN}, std::pair{in.write, POLLOUT}}) {
      if (fd >= 0) fds[n++] = {fd, static_cast<short>(events), 0};
    }
    if (::poll(fds, n, poll_timeout_ms(deadline, 200)) < 0 && errno != EINTR) break;
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == out.read) {
        drain(out.read, [&](std::string_view d) {
          append_tail(result.stdout_text, d, options.stdout_limit, nullptr);
        });
      } else if (fds[i].fd == err.read) {
        drain(err.read, [&](std::string_view d) {
          append_tail(result.stderr_tail, d, options.stderr_tail_bytes, &result.stderr_truncated);
        });
      } else {
        feed(in.write, *options.stdin_data, &written);
      }
    }
    if (!reaped && ::waitpid(pid, &wait_status, WNOHANG) == pid) {
      reaped = true;
      reaped_at = Clock::now();
    }
  }
  for (int* fd : {&in.write, &out.read, &err.read}) close_fd(*fd);
  if (!reaped && !deadline) {
    while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
    }
  } else if (!reaped) {
    const auto left = std::chrono::duration_cast<milliseconds>(*deadline - Clock::now());
    if (!wait_for(pid, std::max(left, milliseconds(0)), &wait_status)) {
      wait_status = kill_group(pid, options.kill_grace);
      result.status.timed_out = true;
    }
  }
  const bool timed_out = result.status.timed_out;
  result.status = ExitStatus::from_wait_status(wait_status);
  result.status.timed_out = timed_out;
  return result;
}

// ---- ChildProcess ----

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const ProcessOptions& options)
    : stderr_limit_(options.stderr_tail_bytes), kill_grace_(options.kill_grace) {
  Pipe in = make_pipe();
  Pipe out = make_pipe();
  Pipe err = make_pipe();
  try {
    pid_ = spawn(argv, options, in.read, out.write, err.write);
  } catch (...) {
    for (int* fd : {&in.read, &in.write, &out.read, &out.write, &err.read, &err.write})
      close_fd(*fd);
    throw;
  }
  close_fd(in.read);
  close_fd(out.write);
  close_fd(err.write);
  stdin_fd_ = in.write;
  stdout_fd_ = out.read;
  stderr_fd_ = err.read;
  for (const int fd : {stdin_fd_, stdout_fd_, stderr_fd_}) ::fcntl(fd, F_SETFL, O_NONBLOCK);
}

ChildProcess::~ChildProcess() { terminate(); }

void ChildProcess::on_stderr(std::string_view data) {
  append_tail(stderr_tail_, data, stderr_limit_, nullptr);
  append_tail(stderr_new_, data, stderr_limit_, nullptr);
}

std::string ChildProcess::stderr_tail() const { return stderr_tail_; }

std::string ChildProcess::take_new_stderr() { return std::exchange(stderr_new_, std::string()); }

bool ChildProcess::pump(std::string_view to_write, std::optional<Clock::time_point> deadline) {
  std::size_t written = 0;
  while (stdout_buffer_.find('\n') == std::string::npos) {
    if (stdout_fd_ < 0) return false;
    if (deadline && Clock::now() >= *deadline) return false;
    pollfd fds[3];
    nfds_t n = 0;
    fds[n++] = {stdout_fd_, POLLIN, 0};
    if (stderr_fd_ >= 0) fds[n++] = {stderr_fd_, POLLIN, 0};
    if (stdin_fd_ >= 0 && written < to_write.size()) fds[n++] = {stdin_fd_, POLLOUT, 0};
    if (::poll(fds, n, poll_timeout_ms(deadline, 1000)) < 0 && errno != EINTR) return false;
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == stdout_fd_) {
        drain(stdout_fd_, [&](std::string_view d) { stdout_buffer_.append(d); });
      } else if (fds[i].fd == stderr_fd_) {
        drain(stderr_fd_, [&](std::string_view d) { on_stderr(d); });
      } else {
        const SigpipeGuard guard;
        const ssize_t w = ::write(stdin_fd_, to_write.data() + written, to_write.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if (w < 0 && errno != EAGAIN && errno != EINTR) close_fd(stdin_fd_);  // the child left
      }
    }
  }
  return true;
}

std::optional<std::string> ChildProcess::request(std::string_view request,
                                                 std::optional<milliseconds> timeout) {
  if (reaped_) return std::nullopt;
  if (stdin_fd_ < 0) {  // a write failed earlier: the child is gone or going
    terminate();
    return std::nullopt;
  }
  std::string line(request);
  line += '\n';
  std::optional<Clock::time_point> deadline;
  if (timeout) deadline = Clock::now() + *timeout;
  if (!pump(line, deadline)) {
    if (deadline && Clock::now() >= *deadline && stdout_fd_ >= 0) {
      terminate();
      status_.timed_out = true;
    } else {
      reap_blocking();
    }
    return std::nullopt;
  }
  const std::size_t nl = stdout_buffer_.find('\n');
  std::string reply = stdout_buffer_.substr(0, nl);
  stdout_buffer_.erase(0, nl + 1);
  return reply;
}

bool ChildProcess::running() {
  if (reaped_) return false;
  int wait_status = 0;
  const pid_t r = ::waitpid(pid_, &wait_status, WNOHANG);
  if (r == 0 || (r < 0 && errno == EINTR)) return true;
  reaped_ = true;
  status_ = r == pid_ ? ExitStatus::from_wait_status(wait_status)
                      : ExitStatus{ExitStatus::Kind::Exited, -1, false};
  return false;
}

void ChildProcess::reap_blocking() {
  if (reaped_) return;
  // The child closed its stdout; collect its last stderr while it exits.
  const auto until = Clock::now() + kill_grace_;
  while (stderr_fd_ >= 0 && Clock::now() < until) {
    pollfd fd{stderr_fd_, POLLIN, 0};
    if (::poll(&fd, 1, poll_timeout_ms(until, 200)) > 0) {
      drain(stderr_fd_, [&](std::string_view d) { on_stderr(d); });
    }
  }
  int wait_status = 0;
  if (wait_for(pid_, kill_grace_, &wait_status)) {
    reaped_ = true;
    status_ = ExitStatus::from_wait_status(wait_status);
  } else {
    terminate();
  }
}

ExitStatus ChildProcess::terminate() {
  if (!reaped_ && pid_ > 0) {
    close_fd(stdin_fd_);  // a well-behaved worker exits at EOF
    int wait_status = 0;
    if (!wait_for(pid_, milliseconds(200), &wait_status))
      wait_status = kill_group(pid_, kill_grace_);
    reaped_ = true;
    status_ = ExitStatus::from_wait_status(wait_status);
  }
  for (int* fd : {&stdin_fd_, &stdout_fd_, &stderr_fd_}) close_fd(*fd);
  return status_;
}

}  // namespace trails::core
