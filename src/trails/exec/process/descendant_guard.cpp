// DescendantGuard and watch_descendants (descendant_guard.h).
#include "trails/exec/process/descendant_guard.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/process_tree.h"
#include "trails/core/signals.h"
#include "trails/core/subprocess.h"

namespace trails::exec {
namespace {

// The watcher's first line: it runs and holds the tree's token.
std::string watching_line(const std::string& token) { return "watching " + token; }

// How long a watcher may take to say so: a program start, on a loaded node.
constexpr std::chrono::seconds kWatcherStartLimit{60};

}  // namespace

DescendantGuard::DescendantGuard()
    : DescendantGuard(std::filesystem::read_symlink("/proc/self/exe")) {}

DescendantGuard::DescendantGuard(const std::filesystem::path& program) {
  core::ProcessOptions joined;
  const std::string token = core::join_process_tree(joined);
  const auto failed = [&](const std::string& why) {
    return core::EngineError(fmt::format(
        "cannot start the guard process `{} worker --guard-tree` that ends every program of "
        "this run if trails itself is killed (docs/execution.md, \"No walker outlives its "
        "driver\"): {}",
        program.string(), why));
  };
  // Started before the environment names the tree, so the watcher is no member of it.
  try {
    watcher_ = std::make_unique<core::ChildProcess>(
        std::vector<std::string>{program.string(), "worker", "--guard-tree", token});
  } catch (const core::Error& e) {
    throw failed(e.what());
  }
  std::string said;
  const auto deadline = std::chrono::steady_clock::now() + kWatcherStartLimit;
  while (said.find('\n') == std::string::npos) {
    const auto read = watcher_->read_bytes(said, deadline);
    if (read == core::ChildProcess::Read::TimedOut) {
      throw failed(
          fmt::format("it did not say that it watches within {} s", kWatcherStartLimit.count()));
    }
    if (read == core::ChildProcess::Read::Closed) {
      const core::ExitStatus status = watcher_->finish();
      throw failed(fmt::format("it {} without saying that it watches{}", status.describe(),
                               watcher_->stderr_tail().empty()
                                   ? std::string()
                                   : ":\n" + core::indent_lines(watcher_->stderr_tail())));
    }
  }
  if (said != watching_line(token) + "\n")
    throw failed("it said '" + said.substr(0, said.find('\n')) + "' instead of watching");
  // A second stop signal SIGKILLs the registered child groups and exits (core/signals.h): the
  // watcher must outlive this process, not die before it, to end the tree.
  core::unregister_child(watcher_->pid());
  const auto& [name, value] = joined.set_env.back();
  TRAILS_CHECK(::setenv(name.c_str(), value.c_str(), 1) == 0, "setenv of the process tree");
}

DescendantGuard::~DescendantGuard() = default;  // ChildProcess ends the watcher

int watch_descendants(const std::string& token) {
  // Only the closed pipe ends a watcher: a `pkill trails` (SIGTERM) stops the driver cleanly
  // and the watcher waits for it; the guard's own end (ChildProcess::terminate: stdin closed,
  // then SIGTERM) leaves the watcher its kill_grace to finish the scan.
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) std::signal(sig, SIG_IGN);
  const std::string line = watching_line(token) + "\n";
  const ssize_t ignored = ::write(STDOUT_FILENO, line.data(), line.size());
  (void)ignored;  // a guard that reads nothing gives up on this watcher and ends it
  char buffer[256];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  core::end_process_tree(token);
  return 0;
}

}  // namespace trails::exec
