// Quantised shards (output.position_precision; docs/file-formats.md, "Quantised positions"):
// every stored coordinate comes back as its grid value (error at most half a step), appended in
// one piece or walker by walker, with a selection too; final states stay exact float64; the
// store's meta says the grid, and a ledger without that entry (an older Trails) reads as exact;
// a coordinate beyond the grid's range is refused, naming the key.
#include <gtest/gtest.h>

#include <cmath>
#include <span>

#include "store_test_util.h"
#include "trails/core/error.h"
#include "trails/store/position_grid.h"
#include "trails/store/shard.h"

namespace trails::store::test {
namespace {

class PositionGridTest : public StoreTest {};

constexpr double kStep = 0.001;

std::vector<double> on_grid(std::vector<double> x, double step) {
  snap_to_grid(x, step);
  return x;
}

// 6 walkers (one failed) of 7 frames: rows cross the groups of 4 inside and between walkers.
IterationRecord grid_record(double step, std::vector<int> atoms = {}) {
  auto r = make_record(0, Shape{.walkers = 6, .frames = 7, .n_atoms = 5, .failed = {3}});
  r.record_policy.position_precision = step;
  r.record_policy.atoms = std::move(atoms);
  std::uint64_t k = 4242;
  for (const auto& w : r.walkers) {
    if (!w.ok) continue;
    FinalState s;
    s.walker = w.walker;
    for (int i = 0; i < r.n_atoms * r.spatial_dim; ++i) {
      s.positions.push_back(test_value(k++));
      s.velocities.push_back(test_value(k++));
    }
    r.final_states.push_back(std::move(s));
  }
  return r;
}

std::vector<core::FrameKey> every_frame(const IterationRecord& r) {
  std::vector<core::FrameKey> keys;
  for (const auto& w : r.walkers) {
    for (std::int64_t f = 0; f < w.n_frames; ++f) keys.push_back({0, w.walker, f});
  }
  return keys;
}

void expect_grid_frames(const RunStore& store, const IterationRecord& r, const char* how) {
  const auto keys = every_frame(r);
  const auto got = store.load_positions(keys);
  ASSERT_EQ(got.size(), keys.size());
  const auto& atoms = r.record_policy.atoms;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const auto full = frame_positions(r, keys[k].walker, keys[k].frame);
    std::vector<double> kept;
    for (int a = 0; a < r.n_atoms; ++a) {
      if (!atoms.empty() && std::find(atoms.begin(), atoms.end(), a) == atoms.end()) continue;
      for (int d = 0; d < r.spatial_dim; ++d) {
        kept.push_back(full[static_cast<std::size_t>(a * r.spatial_dim + d)]);
      }
    }
    const double step = r.record_policy.position_precision;
    EXPECT_TRUE(same_bits(got[k], on_grid(kept, step))) << how << " " << keys[k].to_string();
    for (std::size_t i = 0; i < kept.size(); ++i) {
      ASSERT_LE(std::fabs(got[k][i] - kept[i]), step / 2 * (1 + 1e-9)) << how << " " << i;
    }
  }
}

TEST_F(PositionGridTest, FramesComeBackOnTheGridWithinHalfAStep) {
  for (const double step : {kStep, 0.25}) {
    const auto r = grid_record(step);
    auto store = RunStore::create(dir_ / std::to_string(step), test_meta());
    store.commit(r);
    EXPECT_EQ(store.record_policy(0).position_precision, step);
    expect_grid_frames(store, r, "whole");
  }
}

TEST_F(PositionGridTest, WalkerByWalkerAppendsAndSelectionsReadBackTheSame) {
  for (const bool select : {false, true}) {
    auto r = grid_record(kStep, select ? std::vector<int>{0, 2, 4} : std::vector<int>{});
    auto store = RunStore::create(dir_ / (select ? "select" : "all"), test_meta());
    auto shard = store.begin_shard(0, detail::shard_layout_of(r));
    const auto frame = static_cast<std::size_t>(r.n_atoms * r.spatial_dim);
    std::size_t offset = 0;
    for (const auto& w : r.walkers) {  // one append per ok walker, as the campaign does
      const auto n = static_cast<std::size_t>(w.n_frames) * frame;
      shard.append(std::span<const double>(r.positions).subspan(offset, n));
      offset += n;
    }
    const auto positions = r.positions;
    r.positions.clear();
    store.commit(r, std::move(shard));
    r.positions = positions;
    expect_grid_frames(store, r, select ? "selection" : "streamed");
  }
}

TEST_F(PositionGridTest, FinalStatesStayExact) {
  const auto r = grid_record(kStep);
  auto store = RunStore::create(dir_, test_meta());
  store.commit(r);
  const auto got = store.load_final_states(0);
  ASSERT_EQ(got.size(), r.final_states.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(same_bits(got[i].positions, r.final_states[i].positions));
    EXPECT_TRUE(same_bits(got[i].velocities, r.final_states[i].velocities));
  }
}

TEST_F(PositionGridTest, MetaRecordsTheGridAndAnOlderLedgerReadsAsExact) {
  auto meta = test_meta();
  meta.position_precision = kStep;
  { auto created = RunStore::create(dir_ / "new", meta); }
  EXPECT_EQ(RunStore::open(dir_ / "new", RunStore::Mode::ReadOnly).meta().position_precision,
            kStep);
  { auto created = RunStore::create(dir_ / "old", test_meta()); }
  // A ledger written before position grids has no such entry at all.
  sql(dir_ / "old" / "ledger.sqlite", "DELETE FROM meta WHERE key = 'position_precision'");
  EXPECT_EQ(RunStore::open(dir_ / "old", RunStore::Mode::ReadOnly).meta().position_precision, 0.0);
}

TEST_F(PositionGridTest, ACoordinateBeyondTheGridIsRefused) {
  const std::vector<double> far = {0.5, 2.0e6, -1.0};
  const auto why = off_grid(far, kStep);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("output.position_precision"), std::string::npos) << *why;
  EXPECT_NE(why->find("coordinate 1"), std::string::npos) << *why;
  EXPECT_FALSE(off_grid(std::vector<double>{1.0e5, -1.0e5}, kStep).has_value());
  EXPECT_TRUE(off_grid(std::vector<double>{std::nan("")}, kStep).has_value());
  auto r = grid_record(kStep);
  r.positions[7] = 2.0e6;
  auto store = RunStore::create(dir_, test_meta());
  EXPECT_THROW(store.commit(r), core::StoreError);
}

}  // namespace
}  // namespace trails::store::test
