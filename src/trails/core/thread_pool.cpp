// Persistent workers woken per parallel_for by a generation counter; chunks handed out in
// increasing order by an atomic counter; the lowest failing chunk's exception is kept.
#include "trails/core/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "trails/core/error.h"

namespace trails::core {

namespace {

// > 0 while this thread runs a chunk: a nested parallel_for then runs inline.
thread_local int t_chunk_depth = 0;

struct DepthGuard {
  DepthGuard() { ++t_chunk_depth; }
  ~DepthGuard() { --t_chunk_depth; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
};

void run_inline(std::size_t n, std::size_t chunk, const ThreadPool::ChunkFn& fn) {
  DepthGuard depth;
  for (std::size_t begin = 0; begin < n; begin += chunk) fn(begin, std::min(n, begin + chunk));
}

}  // namespace

struct ThreadPool::State {
  int size = 1;
  std::vector<std::thread> workers;
  std::mutex job_mutex;  // held by the caller whose job occupies the pool

  std::mutex m;
  std::condition_variable work_cv, done_cv;
  bool stop = false;
  std::uint64_t generation = 0;
  int participants = 0;  // workers taking part in the current job
  int active = 0;        // of them, still running

  // The current job; written under m before generation is bumped, read-only until done.
  const ChunkFn* fn = nullptr;
  std::size_t n = 0, chunk = 1, n_chunks = 0;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};

  std::mutex error_mutex;
  std::exception_ptr error;
  std::size_t error_chunk = std::numeric_limits<std::size_t>::max();

  void run_chunks() {
    DepthGuard depth;
    while (!failed.load(std::memory_order_relaxed)) {
      const std::size_t i = next.fetch_add(1);
      if (i >= n_chunks) break;
      const std::size_t begin = i * chunk;
      try {
        (*fn)(begin, std::min(n, begin + chunk));
      } catch (...) {
        const std::lock_guard<std::mutex> lk(error_mutex);
        if (i < error_chunk) {
          error_chunk = i;
          error = std::current_exception();
        }
        failed.store(true);
      }
    }
  }

  void worker_loop(int index) {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lk(m);
        work_cv.wait(lk, [&] { return stop || generation != seen; });
        if (stop) return;
        seen = generation;
        if (index >= participants) continue;
      }
      run_chunks();
      const std::lock_guard<std::mutex> lk(m);
      if (--active == 0) done_cv.notify_all();
    }
  }
};

ThreadPool::ThreadPool(int n_threads) : state_(std::make_unique<State>()) {
  if (n_threads < 1)
    throw InputError("ThreadPool: expected at least 1 thread, got " + std::to_string(n_threads));
  state_->size = n_threads;
  state_->workers.reserve(static_cast<std::size_t>(n_threads - 1));
  for (int w = 0; w + 1 < n_threads; ++w)
    state_->workers.emplace_back([s = state_.get(), w] { s->worker_loop(w); });
}

ThreadPool::~ThreadPool() {
  {
    const std::lock_guard<std::mutex> lk(state_->m);
    state_->stop = true;
  }
  state_->work_cv.notify_all();
  for (auto& t : state_->workers) t.join();
}

int ThreadPool::size() const { return state_->size; }

void ThreadPool::parallel_for(std::size_t n, std::size_t chunk, const ChunkFn& fn,
                              int max_threads) {
  if (chunk < 1) throw InputError("ThreadPool::parallel_for: expected chunk >= 1, got 0");
  if (n == 0) return;
  const std::size_t n_chunks = (n - 1) / chunk + 1;
  std::size_t threads = static_cast<std::size_t>(state_->size);
  if (max_threads > 0) threads = std::min(threads, static_cast<std::size_t>(max_threads));
  threads = std::min(threads, n_chunks);
  State& s = *state_;
  std::unique_lock<std::mutex> job(s.job_mutex, std::defer_lock);
  if (threads <= 1 || t_chunk_depth > 0 || !job.try_lock()) {
    run_inline(n, chunk, fn);
    return;
  }
  {
    const std::lock_guard<std::mutex> lk(s.m);
    s.fn = &fn;
    s.n = n;
    s.chunk = chunk;
    s.n_chunks = n_chunks;
    s.next.store(0);
    s.failed.store(false);
    s.error = nullptr;
    s.error_chunk = std::numeric_limits<std::size_t>::max();
    s.participants = s.active = static_cast<int>(threads) - 1;
    ++s.generation;
  }
  s.work_cv.notify_all();
  s.run_chunks();
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lk(s.m);
    s.done_cv.wait(lk, [&] { return s.active == 0; });
    s.fn = nullptr;
    error = std::exchange(s.error, nullptr);
  }
  job.unlock();
  if (error) std::rethrow_exception(error);
}

int default_thread_count() {
  if (const char* env = std::getenv("TRAILS_THREADS")) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end == env || *end != '\0' || v < 1 || v > 4096)
      throw InputError(std::string("environment variable TRAILS_THREADS: expected an integer "
                                   "from 1 to 4096, got '") +
                       env + "'");
    return static_cast<int>(v);
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

ThreadPool& default_pool() {
  static ThreadPool pool(default_thread_count());
  return pool;
}

std::size_t even_chunk(std::size_t n, std::size_t parts) {
  if (parts < 1) parts = 1;
  return std::max<std::size_t>(1, (n + parts - 1) / parts);
}

}  // namespace trails::core
