// core::ThreadPool: every chunk exactly once, fixed chunk boundaries, exceptions reach the caller
// (lowest failing chunk) after all chunks stop, nested calls run inline, pools are reusable.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "trails/core/error.h"
#include "trails/core/thread_pool.h"

using trails::core::ThreadPool;

namespace {

// A fixed-chunk reduction: per-chunk partial sums folded in chunk order.
double chunked_sum(ThreadPool& pool, const std::vector<double>& v, std::size_t chunk,
                   int max_threads) {
  const std::size_t n_chunks = (v.size() + chunk - 1) / chunk;
  std::vector<double> partial(n_chunks, 0.0);
  pool.parallel_for(
      v.size(), chunk,
      [&](std::size_t b, std::size_t e) {
        double s = 0.0;
        for (std::size_t i = b; i < e; ++i) s += v[i];
        partial[b / chunk] = s;
      },
      max_threads);
  double total = 0.0;
  for (double p : partial) total += p;
  return total;
}

}  // namespace

TEST(ThreadPool, EveryChunkExactlyOnceWithFixedBoundaries) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.size(), 4);
  std::mutex m;
  std::set<std::pair<std::size_t, std::size_t>> seen;
  std::atomic<int> calls{0};
  pool.parallel_for(1003, 100, [&](std::size_t b, std::size_t e) {
    ++calls;
    const std::lock_guard<std::mutex> lk(m);
    EXPECT_TRUE(seen.emplace(b, e).second);
  });
  EXPECT_EQ(calls.load(), 11);
  std::size_t expect = 0;
  for (const auto& [b, e] : seen) {  // ordered by begin: contiguous, chunk-aligned cover
    EXPECT_EQ(b, expect);
    EXPECT_EQ(e, std::min<std::size_t>(1003, b + 100));
    expect = e;
  }
  EXPECT_EQ(expect, 1003u);
  pool.parallel_for(0, 7, [&](std::size_t, std::size_t) { ADD_FAILURE() << "n = 0 ran a chunk"; });
}

TEST(ThreadPool, ReductionIsBitwiseIndependentOfThreadCount) {
  std::vector<double> v(100001);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.37 * double(i)) * 1e3 + 1e-7 * i;
  ThreadPool one(1), three(3), eight(8);
  const double ref = chunked_sum(one, v, 997, 0);
  for (int rep = 0; rep < 20; ++rep) {  // the same pool reused: persistent threads
    EXPECT_EQ(chunked_sum(three, v, 997, 0), ref);
    EXPECT_EQ(chunked_sum(eight, v, 997, 0), ref);
    EXPECT_EQ(chunked_sum(eight, v, 997, 2), ref);
  }
  EXPECT_EQ(chunked_sum(trails::core::default_pool(), v, 997, 0), ref);
}

TEST(ThreadPool, UsesMoreThanOneThreadWhenAllowed) {
  ThreadPool pool(3);
  std::mutex m;
  std::set<std::thread::id> ids;
  std::atomic<int> arrived{0};
  pool.parallel_for(3, 1, [&](std::size_t, std::size_t) {
    ++arrived;
    // Each chunk waits (bounded) for the others: with 3 threads all 3 chunks run at once.
    for (int spin = 0; spin < 2000 && arrived.load() < 3; ++spin)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const std::lock_guard<std::mutex> lk(m);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(ids.size(), 3u);
  ids.clear();
  pool.parallel_for(
      50, 1,
      [&](std::size_t, std::size_t) {
        const std::lock_guard<std::mutex> lk(m);
        ids.insert(std::this_thread::get_id());
      },
      1);
  ASSERT_EQ(ids.size(), 1u);  // max_threads = 1: only the caller
  EXPECT_EQ(*ids.begin(), std::this_thread::get_id());
}

TEST(ThreadPool, FirstFailingChunkIsRethrownAfterAllChunksStop) {
  ThreadPool pool(4);
  for (int rep = 0; rep < 20; ++rep) {
    std::atomic<int> running{0}, max_after{0};
    try {
      pool.parallel_for(64, 1, [&](std::size_t b, std::size_t) {
        ++running;
        if (b == 5 || b == 9) {
          --running;
          throw std::runtime_error("chunk " + std::to_string(b));
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        --running;
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "chunk 5");
      max_after = running.load();
    }
    EXPECT_EQ(max_after.load(), 0) << "a chunk was still running when the caller resumed";
  }
  // The pool stays usable after a failure.
  std::atomic<int> count{0};
  pool.parallel_for(10, 1, [&](std::size_t, std::size_t) { ++count; });
  EXPECT_EQ(count.load(), 10);
}

TEST(ThreadPool, InputErrorsKeepTheirType) {
  ThreadPool pool(2);
  EXPECT_THROW(pool.parallel_for(4, 1,
                                 [](std::size_t b, std::size_t) {
                                   if (b == 3) throw trails::core::InputError("bad state id");
                                 }),
               trails::core::InputError);
  EXPECT_THROW(pool.parallel_for(4, 0, [](std::size_t, std::size_t) {}), trails::core::InputError);
  EXPECT_THROW(ThreadPool(0), trails::core::InputError);
}

TEST(ThreadPool, NestedCallsRunInlineWithoutDeadlock) {
  ThreadPool pool(2);
  std::vector<double> out(8 * 100, 0.0);
  pool.parallel_for(8, 1, [&](std::size_t b, std::size_t) {
    const auto outer = std::this_thread::get_id();
    pool.parallel_for(100, 7, [&](std::size_t ib, std::size_t ie) {
      EXPECT_EQ(std::this_thread::get_id(), outer);  // inline on the chunk's own thread
      for (std::size_t i = ib; i < ie; ++i) out[b * 100 + i] = double(b * 1000 + i);
    });
    trails::core::default_pool().parallel_for(3, 1, [&](std::size_t, std::size_t) {
      EXPECT_EQ(std::this_thread::get_id(), outer);  // another pool, still inline
    });
  });
  for (std::size_t b = 0; b < 8; ++b)
    for (std::size_t i = 0; i < 100; ++i) EXPECT_EQ(out[b * 100 + i], double(b * 1000 + i));
}

TEST(ThreadPool, ConcurrentCallersFromOtherThreadsBothComplete) {
  ThreadPool pool(2);
  std::atomic<long> total{0};
  auto work = [&] {
    for (int r = 0; r < 50; ++r)
      pool.parallel_for(1000, 10, [&](std::size_t b, std::size_t e) { total += long(e - b); });
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  EXPECT_EQ(total.load(), 2L * 50 * 1000);
}

TEST(ThreadPool, EvenChunkCoversInAboutPartsPieces) {
  EXPECT_EQ(trails::core::even_chunk(10, 3), 4u);
  EXPECT_EQ(trails::core::even_chunk(0, 3), 1u);
  EXPECT_EQ(trails::core::even_chunk(5, 0), 5u);
  EXPECT_GE(trails::core::default_thread_count(), 1);
}
