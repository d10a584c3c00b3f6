#include "trails/core/process_spawn.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "trails/core/error.h"
#include "trails/core/signals.h"

extern char** environ;

namespace trails::core::detail {
namespace {

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
    if (unset) continue;
    std::string entry = k + "=";
    entry += v;
    env.push_back(std::move(entry));
  }
  return env;
}

}  // namespace

SigpipeGuard::SigpipeGuard() {
  sigemptyset(&pipe_set_);
  sigaddset(&pipe_set_, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set_, &old_);
  sigset_t pending;
  sigpending(&pending);
  was_pending_ = sigismember(&pending, SIGPIPE) == 1;
}

SigpipeGuard::~SigpipeGuard() {
  sigset_t pending;
  sigpending(&pending);
  if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
    const timespec zero{0, 0};
    sigtimedwait(&pipe_set_, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

void append_tail(std::string& buffer, std::string_view data, std::size_t limit, bool* truncated) {
  buffer.append(data);
  if (buffer.size() > limit) {
    buffer.erase(0, buffer.size() - limit);
    if (truncated != nullptr) *truncated = true;
  }
}

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
  register_child(pid);  // a second stop signal kills its group (core/signals.h)
  return pid;
}

bool wait_for(pid_t pid, std::chrono::milliseconds limit, int* wait_status) {
  const auto until = Clock::now() + limit;
  while (true) {
    const pid_t r = ::waitpid(pid, wait_status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return true;
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int kill_group(pid_t pid, std::chrono::milliseconds grace) {
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
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, cap_ms));
}

void feed(int& fd, std::string_view data, std::size_t* offset) {
  const SigpipeGuard guard;
  const ssize_t n = ::write(fd, data.data() + *offset, data.size() - *offset);
  if (n > 0) *offset += static_cast<std::size_t>(n);
  if ((n < 0 && errno != EAGAIN && errno != EINTR) || *offset == data.size()) close_fd(fd);
}

PipedChild spawn_piped(const std::vector<std::string>& argv, const ProcessOptions& options,
                       bool with_stdin) {
  Pipe in;
  if (with_stdin) in = make_pipe();
  Pipe out = make_pipe();
  Pipe err = make_pipe();
  PipedChild child;
  try {
    child.pid = spawn(argv, options, in.read, out.write, err.write);
  } catch (...) {
    for (int* fd : {&in.read, &in.write, &out.read, &out.write, &err.read, &err.write})
      close_fd(*fd);
    throw;
  }
  close_fd(in.read);
  close_fd(out.write);
  close_fd(err.write);
  child.in = in.write;
  child.out = out.read;
  child.err = err.read;
  return child;
}

}  // namespace trails::core::detail
