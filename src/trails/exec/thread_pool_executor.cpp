// ThreadPoolExecutor: max_workers persistent std::threads, each owning one EngineInstance made
// once in the constructor and kept warm across batches. Workers pull task pointers from one
// queue and push results to another; only the calling thread invokes on_result, so callbacks
// are serialised without locks in user code. One run_batch at a time per executor.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "trails/core/error.h"
#include "trails/exec/executor.h"

namespace trails::exec {
namespace {

class ThreadPoolExecutor final : public Executor {
 public:
  ThreadPoolExecutor(const engines::Engine& engine, int max_workers) {
    // All instances first: a failing make_instance() then leaves no thread to clean up.
    for (int i = 0; i < max_workers; ++i) instances_.push_back(engine.make_instance());
    try {
      for (auto& instance : instances_) {
        threads_.emplace_back([this, raw = instance.get()] { worker_loop(*raw); });
      }
    } catch (...) {
      stop_and_join();
      throw;
    }
  }

  ~ThreadPoolExecutor() override { stop_and_join(); }

  void run_batch(const std::vector<engines::SegmentTask>& tasks,
                 const ResultCallback& on_result) override;
  int workers() const override { return static_cast<int>(instances_.size()); }

 private:
  void worker_loop(engines::EngineInstance& instance);
  void stop_and_join();

  std::vector<std::unique_ptr<engines::EngineInstance>> instances_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable result_ready_;
  std::deque<const engines::SegmentTask*> pending_;  // points into the caller's batch
  std::deque<engines::SegmentResult> done_;
  bool stopping_ = false;
  std::atomic<bool> in_batch_{false};
};

void ThreadPoolExecutor::worker_loop(engines::EngineInstance& instance) {
  for (;;) {
    const engines::SegmentTask* task = nullptr;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      if (stopping_) return;
      task = pending_.front();
      pending_.pop_front();
    }
    engines::SegmentResult result = run_guarded(instance, *task);
    {
      std::lock_guard lock(mutex_);
      done_.push_back(std::move(result));
    }
    result_ready_.notify_one();
  }
}

void ThreadPoolExecutor::run_batch(const std::vector<engines::SegmentTask>& tasks,
                                   const ResultCallback& on_result) {
  TRAILS_CHECK(!in_batch_.exchange(true), "ThreadPoolExecutor::run_batch is not reentrant");
  {
    std::lock_guard lock(mutex_);
    for (const engines::SegmentTask& task : tasks) pending_.push_back(&task);
  }
  work_ready_.notify_all();

  // Every task handed out must come back before returning: workers hold pointers into tasks.
  std::size_t expected = tasks.size();
  std::exception_ptr callback_error;
  for (std::size_t received = 0; received < expected; ++received) {
    engines::SegmentResult result;
    {
      std::unique_lock lock(mutex_);
      result_ready_.wait(lock, [this] { return !done_.empty(); });
      result = std::move(done_.front());
      done_.pop_front();
    }
    if (callback_error) continue;
    try {
      on_result(std::move(result));
    } catch (...) {
      // A failing callback is the caller's error: stop handing out work, drain, rethrow.
      callback_error = std::current_exception();
      std::lock_guard lock(mutex_);
      expected -= pending_.size();
      pending_.clear();
    }
  }
  in_batch_ = false;
  if (callback_error) std::rethrow_exception(callback_error);
}

void ThreadPoolExecutor::stop_and_join() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

}  // namespace

std::unique_ptr<Executor> make_thread_pool_executor(const engines::Engine& engine,
                                                    int max_workers) {
  if (max_workers < 1) {
    throw core::ConfigError("spawning.max_workers must be >= 1 (got " +
                            std::to_string(max_workers) + ")");
  }
  return std::make_unique<ThreadPoolExecutor>(engine, max_workers);
}

}  // namespace trails::exec
