#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>

#include <utility>

#include "trails/core/process_spawn.h"
#include "trails/core/signals.h"
#include "trails/core/subprocess.h"

namespace trails::core {

using namespace detail;  // NOLINT: this file is the layer's implementation
using std::chrono::milliseconds;

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const ProcessOptions& options)
    : stderr_limit_(options.stderr_tail_bytes), kill_grace_(options.kill_grace) {
  const PipedChild child = spawn_piped(argv, options, /*with_stdin=*/true);
  pid_ = child.pid;
  stdin_fd_ = child.in;
  stdout_fd_ = child.out;
  stderr_fd_ = child.err;
  for (const int fd : {stdin_fd_, stdout_fd_, stderr_fd_}) ::fcntl(fd, F_SETFL, O_NONBLOCK);
}

ChildProcess::~ChildProcess() { terminate(); }

void ChildProcess::on_stderr(std::string_view data) {
  append_tail(stderr_tail_, data, stderr_limit_, nullptr);
  append_tail(stderr_new_, data, stderr_limit_, nullptr);
}

std::string ChildProcess::stderr_tail() const { return stderr_tail_; }

std::string ChildProcess::take_new_stderr() { return std::exchange(stderr_new_, std::string()); }

// One poll round: stdout into stdout_buffer_, stderr into the tails, and as much of
// to_write[*written..] as stdin takes. False when poll() failed.
bool ChildProcess::poll_once(std::string_view to_write, std::size_t* written,
                             std::optional<Clock::time_point> deadline) {
  pollfd fds[3];
  nfds_t n = 0;
  if (stdout_fd_ >= 0) fds[n++] = {stdout_fd_, POLLIN, 0};
  if (stderr_fd_ >= 0) fds[n++] = {stderr_fd_, POLLIN, 0};
  if (stdin_fd_ >= 0 && *written < to_write.size()) fds[n++] = {stdin_fd_, POLLOUT, 0};
  if (::poll(fds, n, poll_timeout_ms(deadline, 1000)) < 0 && errno != EINTR) return false;
  for (nfds_t i = 0; i < n; ++i) {
    if (fds[i].revents == 0) continue;
    if (fds[i].fd == stdout_fd_) {
      drain(stdout_fd_, [&](std::string_view d) { stdout_buffer_.append(d); });
    } else if (fds[i].fd == stderr_fd_) {
      drain(stderr_fd_, [&](std::string_view d) { on_stderr(d); });
    } else {
      const SigpipeGuard guard;
      const ssize_t w = ::write(stdin_fd_, to_write.data() + *written, to_write.size() - *written);
      if (w > 0) *written += static_cast<std::size_t>(w);
      if (w < 0 && errno != EAGAIN && errno != EINTR) close_fd(stdin_fd_);  // the child left
    }
  }
  return true;
}

bool ChildProcess::pump(std::string_view to_write, std::optional<Clock::time_point> deadline) {
  std::size_t written = 0;
  while (stdout_buffer_.find('\n') == std::string::npos) {
    if (stdout_fd_ < 0) return false;
    if (deadline && Clock::now() >= *deadline) return false;
    if (!poll_once(to_write, &written, deadline)) return false;
  }
  return true;
}

bool ChildProcess::write_bytes(std::string_view data, std::optional<Clock::time_point> deadline) {
  std::size_t written = 0;
  while (written < data.size()) {
    if (stdin_fd_ < 0 || reaped_) return false;
    if (deadline && Clock::now() >= *deadline) return false;
    if (!poll_once(data, &written, deadline)) return false;
  }
  return true;
}

ChildProcess::Read ChildProcess::read_bytes(std::string& sink,
                                            std::optional<Clock::time_point> deadline) {
  std::size_t nothing = 0;
  while (stdout_buffer_.empty()) {
    if (stdout_fd_ < 0) return Read::Closed;
    if (deadline && Clock::now() >= *deadline) return Read::TimedOut;
    if (!poll_once({}, &nothing, deadline)) return Read::Closed;
  }
  sink.append(stdout_buffer_);
  stdout_buffer_.clear();
  return Read::Data;
}

ExitStatus ChildProcess::finish() {
  reap_blocking();
  for (int* fd : {&stdin_fd_, &stdout_fd_, &stderr_fd_}) close_fd(*fd);
  return status_;
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
  unregister_child(pid_);
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
    unregister_child(pid_);
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
    unregister_child(pid_);
    status_ = ExitStatus::from_wait_status(wait_status);
  }
  for (int* fd : {&stdin_fd_, &stdout_fd_, &stderr_fd_}) close_fd(*fd);
  return status_;
}

}  // namespace trails::core
