// One shared, exception-safe thread pool for every parallel loop in Trails (docs/performance.md,
// "Threads"). Threads are created once per pool and reused by every parallel_for, so a kernel
// that loops (Lloyd iterations, waves of moment chunks) pays no thread start-up per call.
//
// Determinism: parallel_for(n, chunk, fn) cuts [0, n) into the fixed chunks
// [i * chunk, min(n, (i + 1) * chunk)), which depend only on n and chunk, never on the number of
// threads. A kernel that writes per-chunk results and reduces them in chunk order afterwards is
// therefore bitwise independent of the thread count.
//
// Errors: an exception thrown by fn stops the handing out of further chunks; once every running
// chunk has returned, the exception of the lowest-numbered failing chunk is rethrown on the
// caller (deterministic: chunks are handed out in increasing order, so every chunk below a
// failing one has run).
//
// Nesting and concurrency: a parallel_for called from inside a running chunk (of any pool), or
// while another thread's parallel_for occupies the pool, runs inline on the calling thread, in
// chunk order; it never waits for the pool, so it cannot deadlock.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace trails::core {

class ThreadPool {
 public:
  using ChunkFn = std::function<void(std::size_t begin, std::size_t end)>;

  // n_threads >= 1 threads execute chunks: the caller of parallel_for plus n_threads - 1
  // persistent workers started here. Throws core::InputError for n_threads < 1.
  explicit ThreadPool(int n_threads);
  ~ThreadPool();  // joins the workers
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const;

  // Calls fn(begin, end) once for every chunk of [0, n) (see above), on at most
  // min(size(), max_threads) threads (max_threads <= 0: all of them). chunk >= 1; n = 0 calls
  // nothing. Returns when every chunk has run; rethrows the first chunk's exception (above).
  void parallel_for(std::size_t n, std::size_t chunk, const ChunkFn& fn, int max_threads = 0);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The number of threads of the process-wide default pool: the environment variable
// TRAILS_THREADS if set (an integer >= 1, else core::InputError naming it), otherwise the
// hardware concurrency (at least 1).
int default_thread_count();

// The process-wide default pool, created on first use with default_thread_count() threads.
ThreadPool& default_pool();

// Chunk length that splits n items into about `parts` equal chunks (at least 1). Use it only
// where results do not depend on the chunking (per-item outputs); reductions need a fixed chunk.
std::size_t even_chunk(std::size_t n, std::size_t parts);

}  // namespace trails::core
