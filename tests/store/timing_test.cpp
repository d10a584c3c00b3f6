// Commit and load timings for a typical 2-D campaign iteration (64 walkers x 100 frames,
// 1 atom in 2-D, 2 CVs). Disabled by default and never asserts times; run with
//   test_store --gtest_also_run_disabled_tests --gtest_filter='StoreTiming.*'
// On tmpfs (the default scratch) fsync is free, so the numbers exclude it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "store_test_util.h"

namespace trails::store::test {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

class StoreTiming : public StoreTest {};

TEST_F(StoreTiming, DISABLED_CommitAndLoad64x100x2D) {
  Shape shape{64, 100, 2, 1, 2, {}};
  constexpr int kIterations = 20;
  std::vector<IterationRecord> records;
  records.reserve(kIterations);
  for (int i = 0; i < kIterations; ++i) {
    records.push_back(make_record(i, shape));
  }
  auto store = RunStore::create(dir_, test_meta());
  auto t0 = std::chrono::steady_clock::now();
  for (const auto& r : records) {
    store.commit(r);
  }
  const double commit_ms = ms_since(t0) / kIterations;

  std::vector<core::FrameKey> one_shard, spread;
  for (int k = 0; k < 64; ++k) {
    one_shard.push_back({kIterations - 1, (k * 37) % 64, (k * 53) % 100});
    spread.push_back({k % kIterations, (k * 37) % 64, (k * 53) % 100});
  }
  t0 = std::chrono::steady_clock::now();
  for (int rep = 0; rep < 10; ++rep) {
    store.load_positions(one_shard);
  }
  const double load_one_ms = ms_since(t0) / 10;
  t0 = std::chrono::steady_clock::now();
  for (int rep = 0; rep < 10; ++rep) {
    store.load_positions(spread);
  }
  const double load_spread_ms = ms_since(t0) / 10;
  t0 = std::chrono::steady_clock::now();
  const auto all = store.load_iterations();
  const double load_all_ms = ms_since(t0);
  std::printf(
      "scratch %s\n  commit: %.2f ms/iteration (shard %ju bytes)\n"
      "  load_positions 64 frames, 1 shard: %.2f ms; over %d shards: %.2f ms\n"
      "  load_iterations (%d iterations): %.2f ms\n",
      dir_.c_str(), commit_ms, static_cast<std::uintmax_t>(fs::file_size(store.shard_path(0))),
      load_one_ms, kIterations, load_spread_ms, kIterations, load_all_ms);
  EXPECT_EQ(all.size(), records.size());
}

}  // namespace
}  // namespace trails::store::test
