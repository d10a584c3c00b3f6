// Per-frame boxes in the shard (/particles/walkers/box/edges) read back bit for bit with their
// frames; where walkers ran (device, visible devices) round-trips through the ledger, and a
// ledger written before those columns existed still opens, reads and commits.
#include <sqlite3.h>

#include <gtest/gtest.h>

#include "store_test_util.h"

namespace trails::store::test {
namespace {

class BoxAndPlacementTest : public StoreTest {};

IterationRecord with_boxes(IterationRecord r) {
  const auto frames = static_cast<std::uint64_t>(r.n_frames());
  for (std::uint64_t f = 0; f < frames; ++f) {
    for (std::uint64_t k = 0; k < 9; ++k) r.boxes.push_back(test_value(700000 + f * 9 + k));
  }
  return r;
}

std::vector<double> box_of(const IterationRecord& r, std::int64_t w, std::int64_t f) {
  std::int64_t row = 0;
  for (const auto& wr : r.walkers) {
    if (wr.walker == w) break;
    if (wr.ok) row += wr.n_frames;
  }
  const auto begin = r.boxes.begin() + static_cast<std::ptrdiff_t>((row + f) * 9);
  return {begin, begin + 9};
}

TEST_F(BoxAndPlacementTest, BoxesRoundTripWithTheirFrames) {
  const auto r0 = with_boxes(make_record(0));
  const auto r1 = make_record(1);  // no box: a built-in-like iteration
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(r0);
    store.commit(r1);
  }
  auto store = RunStore::open(dir_, RunStore::Mode::ReadOnly);
  const std::vector<core::FrameKey> keys = {{0, 3, 4}, {0, 0, 1}, {1, 1, 2}};
  const auto frames = store.load_frames(keys);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_TRUE(same_bits(frames[0].positions, frame_positions(r0, 3, 4)));
  EXPECT_TRUE(same_bits(frames[0].box, box_of(r0, 3, 4)));
  EXPECT_TRUE(same_bits(frames[1].box, box_of(r0, 0, 1)));
  EXPECT_FALSE(same_bits(frames[0].box, frames[1].box));
  EXPECT_TRUE(same_bits(frames[2].positions, frame_positions(r1, 1, 2)));
  EXPECT_TRUE(frames[2].box.empty());
}

TEST_F(BoxAndPlacementTest, PlacementsRoundTrip) {
  const auto r = make_record(0);
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(r);
  }
  auto store = RunStore::open(dir_, RunStore::Mode::ReadOnly);
  const auto placed = store.walker_placements(0);
  ASSERT_EQ(placed.size(), r.walkers.size());
  for (std::size_t w = 0; w < placed.size(); ++w) {
    EXPECT_EQ(placed[w].platform, r.walkers[w].platform);
    EXPECT_EQ(placed[w].device, r.walkers[w].device);
    EXPECT_EQ(placed[w].visible_devices, r.walkers[w].visible_devices);
    EXPECT_EQ(placed[w].host, r.walkers[w].host);
    EXPECT_EQ(placed[w].ok, r.walkers[w].ok);
  }
  EXPECT_EQ(placed[0].device, "0 (NVIDIA H200)");
  EXPECT_TRUE(store.walker_placements(5).empty());
}

TEST_F(BoxAndPlacementTest, LedgerWithoutDeviceColumnsStillWorks) {
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(make_record(0));
  }
  // The walkers table as Trails wrote it before the GPU-binding columns.
  sql(RunStore::ledger_path(dir_),
      "ALTER TABLE walkers DROP COLUMN device; ALTER TABLE walkers DROP COLUMN visible_devices;");
  {
    auto store = RunStore::open(dir_, RunStore::Mode::ReadWrite);
    store.commit(make_record(1));  // a resumed old run keeps its table as it is
  }
  auto store = RunStore::open(dir_, RunStore::Mode::ReadOnly);
  const auto loaded = store.load_iterations();
  ASSERT_EQ(loaded.size(), 2u);
  for (const auto& rec : loaded) {
    for (const auto& w : rec.walkers) {
      EXPECT_EQ(w.device, "");
      EXPECT_EQ(w.visible_devices, "");
      EXPECT_FALSE(w.platform.empty());
    }
  }
  EXPECT_EQ(store.walker_placements(1).size(), 4u);
}

}  // namespace
}  // namespace trails::store::test
