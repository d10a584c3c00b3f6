// make_scheduler_executor (scheduler_executor.h): the streaming Executor over batches of
// run_scheduler_batch. Submitted tasks wait in a queue; the first next_completed (or a submit
// that reaches max_in_flight) hands the queue to a driver thread as one batch, whose results
// arrive here as their markers appear. One batch runs at a time.
#include "trails/exec/scheduler/scheduler_executor.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "trails/core/error.h"
#include "trails/core/signals.h"
#include "trails/core/subprocess.h"
#include "trails/exec/scheduler/scheduler_batch.h"
#include "trails/exec/scheduler/scheduler_commands.h"

namespace trails::exec {
namespace {

using engines::SegmentResult;
using engines::SegmentTask;

// The array limit: execution.max_array_size when given (a site may allow less than it says),
// else what the scheduler states.
std::optional<int> array_limit(const SchedulerExecutorOptions& o) {
  const std::vector<std::string> argv = limits_command(o.kind);
  core::ProcessOptions p;
  p.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(o.keys.submit_timeout_s * 1000));
  std::optional<int> stated;
  try {
    const core::ProcessResult r = core::run_process(argv, p);
    if (r.status.ok()) stated = parse_max_array_size(o.kind, r.stdout_text);
  } catch (const core::InputError& e) {
    throw core::ConfigError(fmt::format("execution.backend: {} needs the scheduler's commands: {}",
                                        name(o.kind), e.describe()));
  }
  if (o.keys.max_array_size) return o.keys.max_array_size;
  if (!stated) {
    spdlog::warn(
        "'{}' states no array limit; arrays are not split (set "
        "execution.max_array_size if the site has one)",
        fmt::join(argv, " "));
  }
  return stated;
}

class SchedulerExecutor final : public Executor {
 public:
  SchedulerExecutor(SchedulerExecutorOptions options, std::optional<int> limit)
      : options_(std::move(options)),
        limit_(limit),
        slots_(numbered_slots(static_cast<int>(std::max<std::size_t>(1, options_.max_in_flight)))) {
  }
  ~SchedulerExecutor() override { shutdown(); }

  void submit(SegmentTask task) override {
    std::unique_lock lock(mutex_);
    if (stopping_) throw core::InternalError("submit after shutdown of the scheduler executor");
    queued_.push_back(std::move(task));
    ++in_flight_;
    // The queue is one batch once it fills the bound (as soon as the batch before it has
    // ended); wait for room as executor.h promises.
    while (unfinished() >= max_in_flight() && !stopping_ && !error_) {
      if (!running_ && !queued_.empty()) {
        start_batch(lock);
      } else {
        changed_.wait(lock);
      }
    }
  }

  std::optional<SegmentResult> next_completed() override {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (!ready_.empty()) {
        SegmentResult r = std::move(ready_.front());
        ready_.pop_front();
        --in_flight_;
        changed_.notify_all();
        return r;
      }
      if (error_) {
        std::exception_ptr e = std::exchange(error_, nullptr);
        std::rethrow_exception(e);
      }
      if (in_flight_ == 0) return std::nullopt;
      if (!running_ && !queued_.empty()) start_batch(lock);
      changed_.wait(lock);
    }
  }

  std::size_t in_flight() const override {
    std::lock_guard lock(mutex_);
    return unfinished();
  }
  std::size_t results_waiting() const override {
    std::lock_guard lock(mutex_);
    return ready_.size();
  }
  std::size_t max_in_flight() const override {
    return std::max<std::size_t>(1, options_.max_in_flight);
  }
  const std::vector<engines::Slot>& slots() const override { return slots_; }

  void shutdown() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::size_t unfinished() const { return in_flight_ - ready_.size(); }  // holds mutex_

  void start_batch(std::unique_lock<std::mutex>& lock) {
    if (running_ || queued_.empty()) return;
    running_ = true;
    std::vector<SegmentTask> batch(std::make_move_iterator(queued_.begin()),
                                   std::make_move_iterator(queued_.end()));
    queued_.clear();
    lock.unlock();
    if (thread_.joinable()) thread_.join();  // the previous batch's thread has ended
    thread_ = std::thread([this, b = std::move(batch)]() mutable { drive(std::move(b)); });
    lock.lock();
  }

  void drive(std::vector<SegmentTask> batch) {
    const std::size_t size = batch.size();
    std::size_t delivered = 0;
    const detail::Deliver deliver = [&](SegmentResult&& r) {
      std::lock_guard lock(mutex_);
      ++delivered;
      ready_.push_back(std::move(r));
      changed_.notify_all();
    };
    // A stop signal (core/signals.h) ends the batch as a shutdown does: its jobs are
    // cancelled (scancel/qdel) and what finished is delivered. The handler cannot wake this
    // wait, so the flag is looked at every 100 ms.
    const detail::Pause pause = [this](std::chrono::milliseconds d) {
      const auto until = std::chrono::steady_clock::now() + d;
      std::unique_lock lock(mutex_);
      for (;;) {
        if (stopping_ || core::stop_requested()) return false;
        const auto now = std::chrono::steady_clock::now();
        if (now >= until) return true;
        changed_.wait_for(lock, std::min<std::chrono::steady_clock::duration>(
                                    until - now, std::chrono::milliseconds(100)));
      }
    };
    std::exception_ptr error;
    try {
      detail::run_scheduler_batch(options_, limit_, std::move(batch), deliver, pause);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    // Tasks of a failed or stopped batch never finish: they leave the count, so the error
    // surfaces once and nothing waits for them.
    in_flight_ -= size - delivered;
    if (error) error_ = error;
    running_ = false;
    changed_.notify_all();
  }

  SchedulerExecutorOptions options_;
  std::optional<int> limit_;
  std::vector<engines::Slot> slots_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<SegmentTask> queued_;
  std::deque<SegmentResult> ready_;
  std::size_t in_flight_ = 0;  // submitted, not yet taken by next_completed
  bool running_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<Executor> make_scheduler_executor(const SchedulerExecutorOptions& options) {
  TRAILS_CHECK(!options.worker_argv.empty(), "the array task's program is named");
  return std::make_unique<SchedulerExecutor>(options, array_limit(options));
}

}  // namespace trails::exec
