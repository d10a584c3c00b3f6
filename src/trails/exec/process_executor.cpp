// make_process_executor (process_executor.h): a WorkerProcess is the EngineInstance of one
// slot of a thread pool; its run() ships the task to its worker and waits for the Result,
// reading Heartbeats meanwhile. Whatever goes wrong with the worker (it exits, is killed, times
// out, goes silent, speaks out of protocol) becomes a Failed result of that one walker; the
// worker is then ended and the slot starts a new one at its next task.
#include "trails/exec/process_executor.h"

#include <fmt/format.h>

#include <algorithm>

#include "trails/core/error.h"
#include "trails/core/subprocess.h"
#include "trails/exec/wire.h"

namespace trails::exec {
namespace {

using Clock = std::chrono::steady_clock;
using engines::SegmentResult;
using engines::SegmentTask;

std::string seconds(std::chrono::milliseconds d) {
  return fmt::format("{:g} s", static_cast<double>(d.count()) / 1000.0);
}

class WorkerProcess final : public engines::EngineInstance {
 public:
  WorkerProcess(std::shared_ptr<const WorkerOptions> options, engines::Slot slot)
      : options_(std::move(options)), slot_(slot) {
    start();
  }
  ~WorkerProcess() override { stop(); }
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  SegmentResult run(const SegmentTask& task) override;

 private:
  enum class Wait { Message, Closed, Deadline, Silent };

  void start();
  void stop();
  bool send(const wire::Message& message);
  // The next message (into *out), or why none came: the worker closed its stdout, `deadline`
  // passed, or it sent nothing for `silence`.
  Wait next_message(wire::Message* out, std::optional<Clock::time_point> deadline,
                    std::optional<std::chrono::milliseconds> silence);
  // Ends the worker and returns the walker's Failed result: why, and the worker's stderr tail.
  SegmentResult lose_worker(const SegmentTask& task, const std::string& why, bool kill);
  std::string who() const {
    return fmt::format("its worker (pid {}, {})", child_ ? child_->pid() : -1,
                       engines::describe(slot_));
  }

  std::shared_ptr<const WorkerOptions> options_;
  engines::Slot slot_;
  std::unique_ptr<core::ChildProcess> child_;
  std::vector<std::uint8_t> buffer_;  // bytes read from the worker, not yet a whole frame
};

bool WorkerProcess::send(const wire::Message& message) {
  const std::vector<std::uint8_t> frame = wire::frame_of(wire::encode(message));
  const std::string_view bytes(reinterpret_cast<const char*>(frame.data()), frame.size());
  return child_->write_bytes(bytes, Clock::now() + options_->heartbeat_timeout);
}

WorkerProcess::Wait WorkerProcess::next_message(wire::Message* out,
                                                std::optional<Clock::time_point> deadline,
                                                std::optional<std::chrono::milliseconds> silence) {
  Clock::time_point last_heard = Clock::now();
  for (;;) {
    if (std::optional<std::vector<std::uint8_t>> payload = wire::take_frame(buffer_)) {
      *out = wire::decode(*payload);
      return Wait::Message;
    }
    std::optional<Clock::time_point> until = deadline;
    if (silence) until = std::min(until.value_or(Clock::time_point::max()), last_heard + *silence);
    std::string chunk;
    switch (child_->read_bytes(chunk, until)) {
      case core::ChildProcess::Read::Data:
        buffer_.insert(buffer_.end(), chunk.begin(), chunk.end());
        last_heard = Clock::now();
        break;
      case core::ChildProcess::Read::Closed:
        return Wait::Closed;
      case core::ChildProcess::Read::TimedOut:
        return deadline && Clock::now() >= *deadline ? Wait::Deadline : Wait::Silent;
    }
  }
}

void WorkerProcess::start() {
  core::ProcessOptions process;
  process.kill_grace = std::chrono::milliseconds(1000);
  process.set_env = options_->set_env;
  buffer_.clear();
  child_ = std::make_unique<core::ChildProcess>(options_->argv, process);
  const std::string what = fmt::format("the worker process of {} ({})", engines::describe(slot_),
                                       fmt::join(options_->argv, " "));
  wire::Message reply;
  Wait wait = Wait::Closed;
  if (send(wire::Setup{slot_, options_->heartbeat_interval.count(), options_->engine_setup})) {
    wait = next_message(&reply, Clock::now() + options_->start_timeout, std::nullopt);
  }
  std::string problem;
  if (wait == Wait::Message && wire::kind_of(reply) == wire::MessageKind::Hello) {
    const auto& hello = std::get<wire::Hello>(reply);
    if (hello.slot == slot_) return;
    problem = "answered for " + engines::describe(hello.slot);
  } else if (wait == Wait::Message && wire::kind_of(reply) == wire::MessageKind::Error) {
    problem = "failed: " + std::get<wire::ErrorReport>(reply).message;
  } else if (wait == Wait::Message) {
    problem = "sent a " + std::string(wire::name(wire::kind_of(reply))) + " instead of hello";
  } else if (wait == Wait::Deadline) {
    problem = "sent no hello within " + seconds(options_->start_timeout);
  } else {
    problem = "ended before its hello: " + child_->finish().describe();
  }
  child_->terminate();
  const std::string tail = child_->stderr_tail();
  child_.reset();
  throw core::EngineError(
      what + " " + problem +
      (tail.empty() ? "" : "; its stderr ends with:\n" + core::indent_lines(tail)));
}

void WorkerProcess::stop() {
  if (!child_) return;
  try {
    if (child_->running()) send(wire::Shutdown{"the executor shuts down"});
  } catch (const core::Error&) {
    // ending it anyway
  }
  child_->terminate();  // closes stdin; a worker that does not exit at once is killed
  child_.reset();
}

SegmentResult WorkerProcess::lose_worker(const SegmentTask& task, const std::string& why,
                                         bool kill) {
  std::string how;
  if (kill) {
    child_->terminate();
  } else {
    how = ": " + child_->finish().describe();  // "killed by signal 11 (SIGSEGV)"
  }
  const std::string tail = child_->stderr_tail();
  child_.reset();
  SegmentResult result;
  result.task_id = task.task_id;
  result.status = engines::SegmentStatus::Failed;
  result.error = fmt::format(
      "walker {} of iteration {}: {}{}; a new worker takes the slot's next task{}", task.walker,
      task.iteration, why, how,
      tail.empty() ? "" : "\nthe worker's stderr ends with:\n" + core::indent_lines(tail));
  return result;
}

SegmentResult WorkerProcess::run(const SegmentTask& task) {
  if (!child_) {
    try {
      start();
    } catch (const core::Error& e) {
      SegmentResult result;
      result.task_id = task.task_id;
      result.error =
          fmt::format("walker {} of iteration {}: {}", task.walker, task.iteration, e.describe());
      return result;
    }
  }
  const std::string worker = who();
  if (!send(task)) return lose_worker(task, worker + " stopped reading tasks", false);
  std::optional<Clock::time_point> deadline;
  if (options_->walker_timeout) deadline = Clock::now() + *options_->walker_timeout;
  for (;;) {
    wire::Message message;
    Wait wait = Wait::Closed;
    try {
      wait = next_message(&message, deadline, options_->heartbeat_timeout);
    } catch (const core::Error& e) {
      return lose_worker(task, worker + " sent a damaged message: " + e.describe(), true);
    }
    switch (wait) {
      case Wait::Closed:
        return lose_worker(task, worker + " ended while running it", false);
      case Wait::Deadline:
        return lose_worker(task,
                           "walker exceeded execution.walker_timeout (" +
                               seconds(*options_->walker_timeout) + "); " + worker + " was killed",
                           true);
      case Wait::Silent:
        return lose_worker(task,
                           worker + " sent no heartbeat for " +
                               seconds(options_->heartbeat_timeout) +
                               " (hung or stopped) and was killed",
                           true);
      case Wait::Message:
        break;
    }
    switch (wire::kind_of(message)) {
      case wire::MessageKind::Heartbeat:
        continue;
      case wire::MessageKind::Result: {
        auto& result = std::get<SegmentResult>(message);
        if (result.task_id == task.task_id) return std::move(result);
        return lose_worker(task,
                           fmt::format("{} answered task {} with the result of task {}", worker,
                                       task.task_id, result.task_id),
                           true);
      }
      case wire::MessageKind::Error:
        return lose_worker(
            task, worker + " reported: " + std::get<wire::ErrorReport>(message).message, true);
      default:
        return lose_worker(task,
                           worker + " sent a " + std::string(wire::name(wire::kind_of(message))) +
                               " message instead of a result",
                           true);
    }
  }
}

}  // namespace

std::unique_ptr<Executor> make_process_executor(const WorkerOptions& options,
                                                std::vector<engines::Slot> slots,
                                                std::size_t max_in_flight) {
  if (slots.empty()) throw core::ConfigError("a process executor needs at least one slot");
  TRAILS_CHECK(!options.argv.empty(), "the worker program is named");
  const auto shared = std::make_shared<const WorkerOptions>(options);
  std::vector<std::unique_ptr<engines::EngineInstance>> workers;
  for (const engines::Slot& slot : slots)
    workers.push_back(std::make_unique<WorkerProcess>(shared, slot));
  return make_thread_pool_executor(std::move(workers), std::move(slots), max_in_flight);
}

std::unique_ptr<Executor> make_process_executor(const WorkerOptions& options, int workers,
                                                std::size_t max_in_flight) {
  return make_process_executor(options, numbered_slots(workers), max_in_flight);
}

}  // namespace trails::exec
