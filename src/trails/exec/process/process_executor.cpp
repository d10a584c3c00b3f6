// make_process_executor (process_executor.h): a WorkerProcess is the EngineInstance of one
// slot of a thread pool; its run() ships the task to its worker and waits for the Result
// (worker_link.h: the protocol, shared with the MPI executor). Whatever goes wrong with the worker
// (it exits, is killed, times out, goes silent, speaks out of protocol) becomes a Failed result of
// that one walker; the worker is then ended and the slot starts a new one at its next task.
#include "trails/exec/process/process_executor.h"

#include <fmt/format.h>

#include <algorithm>

#include "trails/core/error.h"
#include "trails/core/process_tree.h"
#include "trails/core/subprocess.h"
#include "trails/exec/local/binding_check.h"
#include "trails/exec/wire/channel.h"
#include "trails/exec/wire/wire.h"
#include "trails/exec/wire/worker_link.h"

namespace trails::exec {
namespace {

using Clock = std::chrono::steady_clock;
using engines::SegmentResult;
using engines::SegmentTask;

// The driver's end of a worker process: frames over its stdin and stdout.
class ChildChannel final : public Channel {
 public:
  explicit ChildChannel(core::ChildProcess& child) : child_(child) {}
  bool send(std::span<const std::uint8_t> payload,
            std::optional<Clock::time_point> until) override {
    const std::vector<std::uint8_t> frame = wire::frame_of(payload);
    const std::string_view bytes(reinterpret_cast<const char*>(frame.data()), frame.size());
    return child_.write_bytes(bytes, until);
  }
  Receive receive(std::vector<std::uint8_t>* payload,
                  std::optional<Clock::time_point> until) override {
    for (;;) {
      if (std::optional<std::vector<std::uint8_t>> frame = wire::take_frame(buffer_)) {
        *payload = std::move(*frame);
        return Receive::Message;
      }
      std::string chunk;
      switch (child_.read_bytes(chunk, until)) {
        case core::ChildProcess::Read::Data:
          buffer_.insert(buffer_.end(), chunk.begin(), chunk.end());
          break;
        case core::ChildProcess::Read::Closed:
          return Receive::Closed;
        case core::ChildProcess::Read::TimedOut:
          return Receive::TimedOut;
      }
    }
  }

 private:
  core::ChildProcess& child_;
  std::vector<std::uint8_t> buffer_;  // bytes read from the worker, not yet a whole frame
};

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
  void start();
  void stop();
  // Drops the worker and ends its process tree.
  void end_worker();
  // Ends the worker and returns the walker's Failed result: why, and the worker's stderr tail.
  SegmentResult lose_worker(const SegmentTask& task, const Lost& lost);
  std::string who() const {
    return fmt::format("its worker (pid {}, {})", child_ ? child_->pid() : -1,
                       engines::describe(slot_));
  }

  std::shared_ptr<const WorkerOptions> options_;
  engines::Slot slot_;
  std::unique_ptr<core::ChildProcess> child_;
  std::unique_ptr<ChildChannel> channel_;
  std::string tree_;  // the worker's process-tree token (core/process_tree.h)
};

void WorkerProcess::start() {
  core::ProcessOptions process;
  process.kill_grace = std::chrono::milliseconds(1000);
  process.set_env = options_->set_env;
  // An ended worker takes its walker's programs (the command engine's, mdrun) with it.
  tree_ = core::join_process_tree(process);
  child_ = std::make_unique<core::ChildProcess>(options_->argv, process);
  channel_ = std::make_unique<ChildChannel>(*child_);
  const std::optional<Lost> lost = greet(
      *channel_, wire::Setup{slot_, options_->heartbeat_interval.count(), options_->engine_setup},
      options_->start_timeout);
  if (!lost) return;
  std::string problem = lost->why;
  if (lost->ended) problem += ": " + child_->finish().describe();
  child_->terminate();
  const std::string tail = child_->stderr_tail();
  end_worker();
  throw core::EngineError(
      fmt::format("the worker process of {} ({}) {}", engines::describe(slot_),
                  fmt::join(options_->argv, " "), problem) +
      (tail.empty() ? "" : "; its stderr ends with:\n" + core::indent_lines(tail)));
}

void WorkerProcess::stop() {
  if (!child_) return;
  try {
    if (child_->running())
      send_message(*channel_, wire::Shutdown{"the executor shuts down"},
                   Clock::now() + options_->heartbeat_timeout);
  } catch (const core::Error&) {
    // ending it anyway
  }
  child_->terminate();  // closes stdin; a worker that does not exit at once is killed
  end_worker();
}

void WorkerProcess::end_worker() {
  channel_.reset();
  child_.reset();  // terminates the worker if it still runs
  // Whether killed or crashed: nothing it started outlives it.
  core::end_process_tree(tree_);
}

SegmentResult WorkerProcess::lose_worker(const SegmentTask& task, const Lost& lost) {
  std::string how;
  if (lost.ended) {
    how = ": " + child_->finish().describe();  // "killed by signal 11 (SIGSEGV)"
  } else {
    child_->terminate();
  }
  const std::string tail = child_->stderr_tail();
  end_worker();
  SegmentResult result;
  result.task_id = task.task_id;
  result.status = engines::SegmentStatus::Failed;
  result.error = fmt::format(
      "walker {} of iteration {}: {}{}{}{}", task.walker, task.iteration, lost.why, how,
      lost.stopped ? "" : "; a new worker takes the slot's next task",
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
  std::variant<SegmentResult, Lost> outcome =
      exchange(*channel_, task, {options_->walker_timeout, options_->heartbeat_timeout}, who());
  if (auto* lost = std::get_if<Lost>(&outcome)) return lose_worker(task, *lost);
  return std::get<SegmentResult>(std::move(outcome));
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
  workers = binding_checked(std::move(workers), slots, options.binding_check);
  return make_thread_pool_executor(std::move(workers), std::move(slots), max_in_flight);
}

std::unique_ptr<Executor> make_process_executor(const WorkerOptions& options, int workers,
                                                std::size_t max_in_flight) {
  return make_process_executor(options, numbered_slots(workers), max_in_flight);
}

}  // namespace trails::exec
