#include "trails/core/signals.h"

#include "trails/core/stop_request.h"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>

namespace trails::core {
namespace {

std::atomic<int> g_stop_signal{0};
// pid 0 marks a free slot. Lock-free atomics are async-signal-safe.
std::array<std::atomic<pid_t>, 64> g_children{};
static_assert(std::atomic<pid_t>::is_always_lock_free);  // pid_t is int: covers the flag too

void write_stderr(const char* text) {
  const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

extern "C" void on_stop_signal(int sig) {
  int expected = 0;
  if (g_stop_signal.compare_exchange_strong(expected, sig)) {
    write_stderr(
        "\ntrails: stopping: walkers still running are ended, finished ones are kept "
        "(signal again to abort at once)\n");
    return;
  }
  // Second signal: no cleanup beyond the children; a resume sweeps what the commit left.
  for (auto& child : g_children) {
    const pid_t pid = child.load();
    if (pid > 0) ::kill(-pid, SIGKILL);
  }
  write_stderr("trails: aborted; continue with --resume\n");
  ::_exit(128 + sig);
}

}  // namespace

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // blocking I/O resumes; poll() still returns EINTR
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    // A signal ignored at start stays ignored (nohup; background jobs of a script).
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &action, nullptr);
  }
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, nullptr);
}

int stop_signal() noexcept { return g_stop_signal.load(); }

void request_stop(int signal) noexcept {
  int expected = 0;
  g_stop_signal.compare_exchange_strong(expected, signal);
}

void register_child(pid_t pid) noexcept {
  for (auto& slot : g_children) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, pid)) return;
  }
}

void unregister_child(pid_t pid) noexcept {
  for (auto& slot : g_children) {
    pid_t mine = pid;
    if (slot.compare_exchange_strong(mine, 0)) return;
  }
}

std::string signal_name(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
}

void throw_if_stop_requested() {
  if (const int sig = stop_signal(); sig != 0) throw Interrupted(sig);
}

}  // namespace trails::core
