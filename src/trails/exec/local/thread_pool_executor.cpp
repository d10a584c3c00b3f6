// ThreadPoolExecutor: one persistent std::thread per slot, each owning the EngineInstance made
// for its slot in the constructor and kept warm for the executor's life. submit() appends to
// one queue; a slot that finishes a task pushes the result and takes the next queued task at
// once, without waiting for the driver. in_flight counts queued + running tasks and is
// decremented in the same critical section that publishes the result, so next_completed never
// misses one. Shutdown drops what is still queued, lets running tasks finish and joins.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "trails/core/error.h"
#include "trails/exec/executor.h"

namespace trails::exec {
namespace {

class ThreadPoolExecutor final : public Executor {
 public:
  // All instances first (the caller's): a failing make_instance() then leaves no thread.
  ThreadPoolExecutor(std::vector<std::unique_ptr<engines::EngineInstance>> instances,
                     std::vector<engines::Slot> slots, std::size_t max_in_flight)
      : slots_(std::move(slots)), max_in_flight_(max_in_flight), instances_(std::move(instances)) {
    try {
      for (auto& instance : instances_) {
        threads_.emplace_back([this, raw = instance.get()] { worker_loop(*raw); });
      }
    } catch (...) {
      shutdown();
      throw;
    }
  }
  ~ThreadPoolExecutor() override { shutdown(); }

  void submit(engines::SegmentTask task) override;
  std::optional<engines::SegmentResult> next_completed() override;
  std::size_t in_flight() const override {
    std::lock_guard lock(mutex_);
    return in_flight_;
  }
  std::size_t results_waiting() const override {
    std::lock_guard lock(mutex_);
    return done_.size();
  }
  std::size_t max_in_flight() const override { return max_in_flight_; }
  const std::vector<engines::Slot>& slots() const override { return slots_; }
  void shutdown() override;

 private:
  void worker_loop(engines::EngineInstance& instance);

  std::vector<engines::Slot> slots_;
  std::size_t max_in_flight_;
  std::vector<std::unique_ptr<engines::EngineInstance>> instances_;
  std::vector<std::thread> threads_;
  mutable std::mutex mutex_;
  std::condition_variable work_ready_;    // a task was queued, or stopping
  std::condition_variable result_ready_;  // a result was published, or in_flight reached 0
  std::condition_variable slot_freed_;    // in_flight dropped below the bound, or stopping
  std::deque<engines::SegmentTask> queue_;
  std::deque<engines::SegmentResult> done_;
  std::size_t in_flight_ = 0;
  bool stopping_ = false;
};

void ThreadPoolExecutor::submit(engines::SegmentTask task) {
  {
    std::unique_lock lock(mutex_);
    slot_freed_.wait(lock, [this] { return stopping_ || in_flight_ < max_in_flight_; });
    if (stopping_) throw core::InternalError("ThreadPoolExecutor::submit after shutdown");
    ++in_flight_;
    queue_.push_back(std::move(task));
  }
  work_ready_.notify_one();
}

std::optional<engines::SegmentResult> ThreadPoolExecutor::next_completed() {
  std::unique_lock lock(mutex_);
  result_ready_.wait(lock, [this] { return !done_.empty() || in_flight_ == 0; });
  if (done_.empty()) return std::nullopt;
  engines::SegmentResult result = std::move(done_.front());
  done_.pop_front();
  return result;
}

void ThreadPoolExecutor::worker_loop(engines::EngineInstance& instance) {
  for (;;) {
    engines::SegmentTask task;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    engines::SegmentResult result = run_guarded(instance, task);
    {
      std::lock_guard lock(mutex_);
      done_.push_back(std::move(result));
      --in_flight_;
    }
    result_ready_.notify_all();
    slot_freed_.notify_one();
  }
}

void ThreadPoolExecutor::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
    in_flight_ -= queue_.size();  // never started: dropped
    queue_.clear();
  }
  work_ready_.notify_all();
  slot_freed_.notify_all();
  result_ready_.notify_all();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
  {
    std::lock_guard lock(mutex_);
    done_.clear();
  }
  result_ready_.notify_all();  // a consumer on another thread now sees nothing in flight
}

}  // namespace

std::unique_ptr<Executor> make_thread_pool_executor(
    std::vector<std::unique_ptr<engines::EngineInstance>> instances,
    std::vector<engines::Slot> slots, std::size_t max_in_flight) {
  if (slots.empty()) throw core::ConfigError("a thread pool executor needs at least one slot");
  TRAILS_CHECK(instances.size() == slots.size(), "one instance per slot");
  for (std::size_t i = 0; i < slots.size(); ++i) {
    TRAILS_CHECK(slots[i].index == static_cast<int>(i), "slot i must have index i");
  }
  if (max_in_flight == 0) max_in_flight = 2 * slots.size();
  return std::make_unique<ThreadPoolExecutor>(std::move(instances), std::move(slots),
                                              max_in_flight);
}

std::unique_ptr<Executor> make_thread_pool_executor(const engines::Engine& engine,
                                                    std::vector<engines::Slot> slots,
                                                    std::size_t max_in_flight) {
  if (slots.empty()) throw core::ConfigError("a thread pool executor needs at least one slot");
  std::vector<std::unique_ptr<engines::EngineInstance>> instances;
  for (const engines::Slot& slot : slots) instances.push_back(engine.make_instance(slot));
  return make_thread_pool_executor(std::move(instances), std::move(slots), max_in_flight);
}

std::vector<engines::Slot> numbered_slots(int workers) {
  if (workers < 1) {
    throw core::ConfigError("spawning.max_workers must be >= 1 (got " + std::to_string(workers) +
                            ")");
  }
  std::vector<engines::Slot> slots(static_cast<std::size_t>(workers));
  for (int i = 0; i < workers; ++i) slots[static_cast<std::size_t>(i)] = {i, std::nullopt, i};
  return slots;
}

std::unique_ptr<Executor> make_thread_pool_executor(const engines::Engine& engine, int workers,
                                                    std::size_t max_in_flight) {
  return make_thread_pool_executor(engine, numbered_slots(workers), max_in_flight);
}

}  // namespace trails::exec
