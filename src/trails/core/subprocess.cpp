#include "trails/core/subprocess.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "trails/core/process_spawn.h"
#include "trails/core/process_tree.h"
#include "trails/core/signals.h"

namespace trails::core {

using namespace detail;  // NOLINT: this file is the layer's implementation
using std::chrono::milliseconds;

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

namespace {

constexpr std::string_view kTreeVariable = "TRAILS_PROCESS_TREE";

// Whether /proc/PID/environ's TRAILS_PROCESS_TREE lists `token` (its value is the ':'-joined
// tokens of every tree the process belongs to, outermost first).
bool environ_holds(const std::filesystem::path& environ, const std::string& token) {
  std::ifstream in(environ, std::ios::binary);
  if (!in) return false;
  std::string item;
  while (std::getline(in, item, '\0')) {
    if (!item.starts_with(kTreeVariable) || item.size() <= kTreeVariable.size() ||
        item[kTreeVariable.size()] != '=')
      continue;
    std::string_view value(item);
    value.remove_prefix(kTreeVariable.size() + 1);
    while (!value.empty()) {
      const std::size_t colon = value.find(':');
      if (value.substr(0, colon) == token) return true;
      if (colon == std::string_view::npos) break;
      value.remove_prefix(colon + 1);
    }
    return false;
  }
  return false;
}

// Ends the tree of `token` when it leaves scope (every way out of run_process).
struct TreeGuard {
  std::string token;
  ~TreeGuard() {
    if (!token.empty()) end_process_tree(token);
  }
};

}  // namespace

std::string join_process_tree(ProcessOptions& options) {
  static std::atomic<std::uint64_t> counter{0};
  // A token no other child of this or another Trails process holds.
  std::string token = fmt::format("{}-{}", ::getpid(), counter.fetch_add(1));
  // Nested: a child of a `trails worker` that is itself a tree stays in the worker's tree, so
  // ending the worker's tree ends its segment programs too.
  const char* outer = std::getenv(std::string(kTreeVariable).c_str());
  std::string value = outer != nullptr && *outer != '\0' ? std::string(outer) + ":" + token : token;
  options.set_env.emplace_back(std::string(kTreeVariable), std::move(value));
  return token;
}

int end_process_tree(const std::string& token) {
  const pid_t self = ::getpid();
  int killed = 0;
  // A process may fork while the scan runs: scan again until a pass finds nothing.
  for (int pass = 0; pass < 20; ++pass) {
    int found = 0;
    std::error_code ec;
    for (const auto& dir : std::filesystem::directory_iterator("/proc", ec)) {
      const std::string name = dir.path().filename().string();
      if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
      const pid_t pid = static_cast<pid_t>(std::stol(name));
      if (pid == self || !environ_holds(dir.path() / "environ", token)) continue;
      if (::kill(pid, SIGKILL) == 0) ++found;
    }
    killed += found;
    if (found == 0) break;
    ::usleep(10000);  // let the killed ones go before looking again
  }
  return killed;
}

ProcessResult run_process(const std::vector<std::string>& argv,
                          const ProcessOptions& given_options) {
  ProcessOptions options = given_options;
  TreeGuard tree;
  if (options.end_descendants) tree.token = join_process_tree(options);
  const PipedChild child = spawn_piped(argv, options, options.stdin_data.has_value());
  const pid_t pid = child.pid;
  Pipe in{-1, child.in};
  Pipe out{child.out, -1};
  Pipe err{child.err, -1};
  if (in.write >= 0) ::fcntl(in.write, F_SETFL, O_NONBLOCK);

  ProcessResult result;
  std::optional<Clock::time_point> deadline;
  if (options.timeout) deadline = Clock::now() + *options.timeout;
  std::size_t written = 0;
  int wait_status = 0;
  bool reaped = false;
  std::optional<Clock::time_point> reaped_at;  // a grandchild may keep our pipes open
  const auto stop_if_requested = [&] {
    if (!options.interruptible || reaped || !stop_requested()) return;
    kill_group(pid, options.kill_grace);
    unregister_child(pid);
    for (int* fd : {&in.write, &out.read, &err.read}) close_fd(*fd);
    throw Interrupted(stop_signal());
  };
  while (out.read >= 0 || err.read >= 0 || in.write >= 0) {
    stop_if_requested();
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
    while (!wait_for(pid, milliseconds(200), &wait_status)) stop_if_requested();
  } else if (!reaped) {
    const auto left = std::chrono::duration_cast<milliseconds>(*deadline - Clock::now());
    if (!wait_for(pid, std::max(left, milliseconds(0)), &wait_status)) {
      wait_status = kill_group(pid, options.kill_grace);
      result.status.timed_out = true;
    }
  }
  unregister_child(pid);
  const bool timed_out = result.status.timed_out;
  result.status = ExitStatus::from_wait_status(wait_status);
  result.status.timed_out = timed_out;
  return result;
}

}  // namespace trails::core
