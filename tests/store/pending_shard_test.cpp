// The pending shard (docs/file-formats.md, "When a shard is written"): positions appended walker
// by walker while the iteration runs give the same frames as a record committed whole, large
// shards reach the disk before the commit, an abandoned shard leaves no file, and the bytes
// depend only on the appends and the record.
#include <gtest/gtest.h>

#include <span>

#include "store_test_util.h"
#include "trails/core/error.h"
#include "trails/store/run_store.h"
#include "trails/store/shard.h"

namespace trails::store::test {
namespace {

using PendingShardTest = StoreTest;

// The ok walkers' frames of `r`, one span per walker, in walker order.
std::vector<std::span<const double>> walker_blocks(const IterationRecord& r) {
  std::vector<std::span<const double>> blocks;
  const auto frame = static_cast<std::size_t>(r.n_atoms * r.spatial_dim);
  std::size_t offset = 0;
  for (const auto& w : r.walkers) {
    if (!w.ok) continue;
    const auto n = static_cast<std::size_t>(w.n_frames) * frame;
    blocks.emplace_back(r.positions.data() + offset, n);
    offset += n;
  }
  return blocks;
}

// Commits `r` with its positions appended walker by walker (the record's own left empty).
void commit_streamed(RunStore& store, IterationRecord r) {
  auto shard = store.begin_shard(r.iteration, detail::shard_layout_of(r));
  for (const auto block : walker_blocks(r)) shard.append(block);
  EXPECT_EQ(shard.frames(), r.n_frames());
  r.positions.clear();
  store.commit(r, std::move(shard));
}

TEST_F(PendingShardTest, AppendedWalkerByWalkerReadsBackAsCommittedWhole) {
  Shape shape;
  shape.walkers = 5;
  shape.frames = 7;
  shape.failed = {1, 3};
  for (const bool reduce : {false, true}) {
    const fs::path dir = dir_ / (reduce ? "reduced" : "full");
    auto r = make_record(0, shape);
    if (reduce) r.record_policy = {{0, 2}, true};
    auto store = RunStore::create(dir, test_meta());
    commit_streamed(store, r);
    std::vector<core::FrameKey> keys;
    for (const auto& w : r.walkers) {
      for (std::int64_t f = 0; f < w.n_frames; ++f) keys.push_back({0, w.walker, f});
    }
    const auto got = store.load_positions(keys);
    ASSERT_EQ(got.size(), keys.size());
    for (std::size_t k = 0; k < keys.size(); ++k) {
      auto want = frame_positions(r, keys[k].walker, keys[k].frame);
      if (reduce) {  // atoms 0 and 2 as float32
        std::vector<double> kept;
        for (const int a : {0, 2}) {
          for (int d = 0; d < 3; ++d) {
            kept.push_back(static_cast<float>(want[static_cast<std::size_t>(a * 3 + d)]));
          }
        }
        want = kept;
      }
      EXPECT_TRUE(same_bits(got[k], want)) << (reduce ? "reduced " : "full ") << "row " << k;
    }
    expect_same_record(store.load_iterations()[0], r);
  }
}

TEST_F(PendingShardTest, SameAppendsSameBytes) {
  // What a resumed run relies on: rewriting an iteration with the same appends gives the same
  // file, bit for bit.
  const auto r = make_record(0);
  std::vector<std::vector<char>> bytes;
  for (const char* name : {"a", "b"}) {
    auto store = RunStore::create(dir_ / name, test_meta());
    commit_streamed(store, r);
    bytes.push_back(test_support::read_bytes(store.shard_path(0)));
  }
  ASSERT_FALSE(bytes[0].empty());
  EXPECT_EQ(bytes[0], bytes[1]);
}

TEST_F(PendingShardTest, LargePositionsReachTheDiskBeforeTheCommit) {
  // 6 MiB of coordinates: over the in-memory limit, so each append goes to the temporary file
  // while the iteration still runs.
  Shape shape;
  shape.walkers = 4;
  shape.frames = 20;
  shape.n_atoms = 5000;
  shape.failed = {};
  const auto r = make_record(0, shape);
  auto store = RunStore::create(dir_, test_meta());
  ShardLayout layout;
  layout.n_atoms = r.n_atoms;
  layout.spatial_dim = r.spatial_dim;
  layout.expected_frames = r.n_frames();
  layout.expected_states = 4;
  layout.cv_dim = r.cv_dim;
  auto shard = store.begin_shard(0, layout);
  const fs::path tmp = store.shard_path(0).string() + ".tmp";
  const auto blocks = walker_blocks(r);
  for (std::size_t w = 0; w + 1 < blocks.size(); ++w) shard.append(blocks[w]);
  // Three walkers of 20 frames × 5000 atoms × 3 float64 (shuffled and deflated): several MB on
  // disk already; HDF5's chunk cache holds at most 1 MiB of it.
  ASSERT_TRUE(fs::is_regular_file(tmp));
  EXPECT_GT(fs::file_size(tmp), std::uintmax_t{2} << 20);
  shard.append(blocks.back());
  auto record = r;
  record.positions.clear();
  store.commit(record, std::move(shard));
  EXPECT_FALSE(fs::exists(tmp));
  const std::vector<core::FrameKey> keys = {{0, 3, 19}};
  EXPECT_TRUE(same_bits(store.load_positions(keys)[0], frame_positions(r, 3, 19)));
}

TEST_F(PendingShardTest, AnAbandonedShardLeavesNoFileAndTheStoreGoesOn) {
  const auto r = make_record(0);
  auto store = RunStore::create(dir_, test_meta());
  const fs::path tmp = store.shard_path(0).string() + ".tmp";
  {
    ShardLayout layout;
    layout.n_atoms = r.n_atoms;
    layout.spatial_dim = r.spatial_dim;
    auto shard = store.begin_shard(0, layout);
    shard.append(walker_blocks(r).front());
  }  // an iteration that failed before its commit
  EXPECT_FALSE(fs::exists(tmp));
  store.commit(r);
  EXPECT_EQ(store.last_committed(), 0);
}

TEST_F(PendingShardTest, ARecordThatIsNotTheShardsIsRefused) {
  const auto r = make_record(0);
  auto store = RunStore::create(dir_, test_meta());
  ShardLayout layout;
  layout.n_atoms = r.n_atoms;
  layout.spatial_dim = r.spatial_dim;
  {
    auto shard = store.begin_shard(0, layout);
    shard.append(walker_blocks(r).front());  // one walker of three
    auto record = r;
    record.positions.clear();
    EXPECT_THROW(store.commit(record, std::move(shard)), core::InternalError);
  }
  // Part of a frame is refused at once.
  auto other = store.begin_shard(0, layout);
  const std::vector<double> half(4, 0.0);
  EXPECT_THROW(other.append(half), core::InternalError);
  // Only the next iteration has a shard.
  EXPECT_THROW((void)store.begin_shard(1, layout), core::InternalError);
}

}  // namespace
}  // namespace trails::store::test
