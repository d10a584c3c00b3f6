// Round trips through the run store: meta, records (bit-exact), summaries, positions, the
// ordering and consistency checks, zero-frame iterations and the fail-stop after a failed commit.
#include <gtest/gtest.h>

#include "store_test_util.h"
#include "trails/core/error.h"

namespace trails::store::test {
namespace {

using core::FrameKey;

class RunStoreTest : public StoreTest {};

TEST_F(RunStoreTest, CreateWritesLayoutAndMeta) {
  auto meta = test_meta();
  {
    auto store = RunStore::create(dir_, meta);
    EXPECT_FALSE(store.last_committed().has_value());
    EXPECT_EQ(store.meta().schema_version, kSchemaVersion);
    EXPECT_EQ(store.meta().config, meta.config);
    EXPECT_EQ(store.shard_path(7), dir_ / "shards" / "iter_000007.h5");
  }
  EXPECT_TRUE(RunStore::exists(dir_));
  EXPECT_EQ(RunStore::ledger_path(dir_), dir_ / "ledger.sqlite");
  EXPECT_TRUE(fs::is_directory(dir_ / "shards"));
  // A closed ledger is a single file: no -wal/-shm, no temporaries.
  EXPECT_FALSE(fs::exists(dir_ / "ledger.sqlite-wal"));
  EXPECT_FALSE(fs::exists(dir_ / "ledger.sqlite-shm"));
  EXPECT_FALSE(fs::exists(dir_ / "ledger.sqlite.tmp"));

  auto store = RunStore::open(dir_, RunStore::Mode::ReadOnly);
  const auto& m = store.meta();
  EXPECT_EQ(m.schema_version, kSchemaVersion);
  EXPECT_EQ(m.trails_version, meta.trails_version);
  EXPECT_EQ(m.config_digest, meta.config_digest);
  EXPECT_EQ(m.config, meta.config);
  EXPECT_EQ(m.effective_config, meta.effective_config);
  EXPECT_EQ(m.created_at, meta.created_at);
}

TEST_F(RunStoreTest, CreateFillsCreatedAtAndRefusesAnExistingRun) {
  auto meta = test_meta();
  meta.created_at.clear();
  {
    auto store = RunStore::create(dir_, meta);
    EXPECT_EQ(store.meta().created_at.size(), 24u);
  }
  try {
    RunStore::create(dir_, meta);
    FAIL() << "create over an existing run must fail";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("already holds a Trails run"), std::string::npos);
    EXPECT_EQ(e.exit_code(), 2);
  }
}

TEST_F(RunStoreTest, RoundTripIsBitExact) {
  std::vector<IterationRecord> records;
  {
    auto store = RunStore::create(dir_, test_meta());
    for (int i = 0; i < 3; ++i) {
      records.push_back(make_record(i));
      store.commit(records.back());
      EXPECT_EQ(store.last_committed(), i);
    }
    const auto loaded = store.load_iterations();
    ASSERT_EQ(loaded.size(), records.size());
    for (std::size_t i = 0; i < loaded.size(); ++i) expect_same_record(loaded[i], records[i]);
  }
  for (auto mode : {RunStore::Mode::ReadOnly, RunStore::Mode::ReadWrite}) {
    auto store = RunStore::open(dir_, mode);
    EXPECT_EQ(store.last_committed(), 2);
    const auto loaded = store.load_iterations();
    ASSERT_EQ(loaded.size(), records.size());
    for (std::size_t i = 0; i < loaded.size(); ++i) {
      expect_same_record(loaded[i], records[i]);
      EXPECT_TRUE(loaded[i].positions.empty());
    }
  }
}

TEST_F(RunStoreTest, NanTimingsSurvive) {
  auto store = RunStore::create(dir_, test_meta());
  auto r = make_record(0);
  r.runner_s = std::numeric_limits<double>::quiet_NaN();
  r.walkers[0].startup_s = std::numeric_limits<double>::quiet_NaN();
  store.commit(r);
  const auto loaded = store.load_iterations();
  EXPECT_TRUE(std::isnan(loaded[0].runner_s));
  EXPECT_TRUE(std::isnan(loaded[0].walkers[0].startup_s));
}

TEST_F(RunStoreTest, SummariesAreCheap) {
  auto store = RunStore::create(dir_, test_meta());
  const auto r0 = make_record(0);
  const auto r1 = make_record(1);
  store.commit(r0);
  store.commit(r1);
  const auto s = store.summaries();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1].iteration, 1);
  EXPECT_EQ(s[1].successful_walkers, 3);
  EXPECT_EQ(s[1].failed_walkers, 1);
  EXPECT_EQ(s[1].frames, 15);
  EXPECT_EQ(s[1].cumulative_frames, r1.cumulative_frames);
  EXPECT_EQ(s[1].occupied_bins, r1.occupied_bins);
  EXPECT_EQ(s[1].total_bins, r1.total_bins);
  EXPECT_EQ(s[1].n_bins, r1.n_bins);
  EXPECT_TRUE(same_bits(s[1].runner_s, r1.runner_s));
  EXPECT_TRUE(same_bits(s[1].analysis_s, r1.analysis_s));
  EXPECT_EQ(s[1].spawn_pool_indices, (std::vector<std::int64_t>{1, 4, 7, 10}));
  EXPECT_EQ(s[1].state, r1.state);
  EXPECT_EQ(s[1].committed_at.size(), 24u);
  EXPECT_EQ(s[1].committed_at.back(), 'Z');
}

TEST_F(RunStoreTest, LoadPositionsInRequestOrder) {
  auto store = RunStore::create(dir_, test_meta());
  const auto r0 = make_record(0);
  const auto r1 = make_record(1);
  store.commit(r0);
  store.commit(r1);
  const std::vector<FrameKey> keys = {{1, 3, 4}, {0, 0, 0}, {1, 0, 2}, {0, 3, 4}, {1, 3, 4}};
  const auto got = store.load_positions(keys);
  ASSERT_EQ(got.size(), keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto& r = keys[i].iteration == 0 ? r0 : r1;
    EXPECT_TRUE(same_bits(got[i], frame_positions(r, keys[i].walker, keys[i].frame))) << i;
  }
  EXPECT_TRUE(store.load_positions({}).empty());
}

TEST_F(RunStoreTest, UnknownFramesAreInputErrors) {
  auto store = RunStore::create(dir_, test_meta());
  store.commit(make_record(0));
  const std::vector<std::pair<FrameKey, std::string>> cases = {
      {{1, 0, 0}, "not committed"},   // future iteration
      {{0, 9, 0}, "no such walker"},  // walker out of range
      {{0, 2, 0}, "failed"},          // failed walker has no frames
      {{0, 0, 5}, "has 5 frames"},    // frame past the end
      {{0, 0, -1}, "has 5 frames"}};
  for (const auto& [key, why] : cases) {
    const std::vector<FrameKey> keys = {key};
    try {
      store.load_positions(keys);
      FAIL() << key.to_string();
    } catch (const core::InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(key.to_string()), std::string::npos) << msg;
      EXPECT_NE(msg.find(why), std::string::npos) << msg;
    }
  }
}

TEST_F(RunStoreTest, IterationsAreCommittedInOrder) {
  auto store = RunStore::create(dir_, test_meta());
  EXPECT_THROW(store.commit(make_record(1)), core::InternalError);
  store.commit(make_record(0));  // a refused record does not poison the store
  EXPECT_THROW(store.commit(make_record(0)), core::InternalError);
  EXPECT_THROW(store.commit(make_record(2)), core::InternalError);
  store.commit(make_record(1));
  EXPECT_EQ(store.last_committed(), 1);
}

TEST_F(RunStoreTest, InconsistentRecordsAreRefused) {
  auto store = RunStore::create(dir_, test_meta());
  auto bad_cvs = make_record(0);
  bad_cvs.cvs.pop_back();
  EXPECT_THROW(store.commit(bad_cvs), core::InternalError);
  auto bad_positions = make_record(0);
  bad_positions.positions.push_back(1.0);
  EXPECT_THROW(store.commit(bad_positions), core::InternalError);
  auto unsorted = make_record(0);
  std::swap(unsorted.walkers[0], unsorted.walkers[1]);
  EXPECT_THROW(store.commit(unsorted), core::InternalError);
  auto bad_spawn = make_record(0);
  bad_spawn.spawns[0].source = FrameKey{0, 7, 0};  // walker 7 does not exist
  EXPECT_THROW(store.commit(bad_spawn), core::StoreError);
  EXPECT_FALSE(store.last_committed().has_value());
}

TEST_F(RunStoreTest, ZeroFrameIterationHasAValidShard) {
  Shape all_failed;
  all_failed.failed = {0, 1, 2, 3};
  const auto r = make_record(0, all_failed);
  ASSERT_EQ(r.n_frames(), 0);
  ASSERT_TRUE(r.spawns.empty());
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(r);
    store.commit(make_record(1));
  }
  auto store = RunStore::open(dir_, RunStore::Mode::ReadWrite);
  const auto loaded = store.load_iterations();
  ASSERT_EQ(loaded.size(), 2u);
  expect_same_record(loaded[0], r);
  EXPECT_TRUE(fs::is_regular_file(store.shard_path(0)));
  const std::vector<FrameKey> keys = {{0, 0, 0}};
  EXPECT_THROW(store.load_positions(keys), core::InputError);
}

TEST_F(RunStoreTest, FeaturesOnlyIterationWithoutAtoms) {
  Shape no_atoms;
  no_atoms.n_atoms = 0;
  const auto r = make_record(0, no_atoms);
  auto store = RunStore::create(dir_, test_meta());
  store.commit(r);
  const std::vector<FrameKey> keys = {{0, 1, 3}};
  const auto got = store.load_positions(keys);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0].empty());
  expect_same_record(store.load_iterations()[0], r);
}

TEST_F(RunStoreTest, FailedCommitStopsUntilReopened) {
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(make_record(0));
    // A directory where the temporary shard goes makes the shard write fail (even as root).
    fs::create_directory(dir_ / "shards" / "iter_000001.h5.tmp");
    try {
      store.commit(make_record(1));
      FAIL() << "the commit must fail";
    } catch (const core::StoreError& e) {
      EXPECT_NE(std::string(e.what()).find("iter_000001.h5.tmp"), std::string::npos) << e.what();
    }
    fs::remove_all(dir_ / "shards" / "iter_000001.h5.tmp");
    EXPECT_THROW(store.commit(make_record(1)), core::StoreError);
    EXPECT_EQ(store.last_committed(), 0);
  }
  auto store = RunStore::open(dir_, RunStore::Mode::ReadWrite);
  EXPECT_EQ(store.last_committed(), 0);
  store.commit(make_record(1));
  EXPECT_EQ(store.last_committed(), 1);
}

TEST_F(RunStoreTest, MoveKeepsTheStore) {
  auto a = RunStore::create(dir_, test_meta());
  RunStore b = std::move(a);
  b.commit(make_record(0));
  a = std::move(b);
  EXPECT_EQ(a.last_committed(), 0);
}

}  // namespace
}  // namespace trails::store::test
