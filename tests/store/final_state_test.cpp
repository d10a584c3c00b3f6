// Schema 2 of the run store: final states (bitwise, with and without velocities and box),
// walker weights, element state blobs with their version check, and the clear refusal of a run
// made by schema 1.
#include <gtest/gtest.h>

#include "store_test_util.h"
#include "support/compare.h"
#include "trails/core/error.h"

namespace trails::store::test {
namespace {

class FinalStateTest : public StoreTest {};

// Final states for every ok walker of `r`: awkward doubles, velocities and box when asked.
void add_final_states(IterationRecord& r, bool velocities, bool box) {
  std::uint64_t k = 777 + static_cast<std::uint64_t>(r.iteration) * 7919;
  const auto n = static_cast<std::size_t>(r.n_atoms * r.spatial_dim);
  for (const auto& w : r.walkers) {
    if (!w.ok) continue;
    FinalState s;
    s.walker = w.walker;
    for (std::size_t i = 0; i < n; ++i) s.positions.push_back(test_value(k++));
    if (velocities) {
      for (std::size_t i = 0; i < n; ++i) s.velocities.push_back(test_value(k++));
    }
    if (box) {
      for (int i = 0; i < 9; ++i) s.box.push_back(test_value(k++));
    }
    r.final_states.push_back(std::move(s));
  }
}

void expect_same_final_states(const std::vector<FinalState>& a, const std::vector<FinalState>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].walker, b[i].walker);
    EXPECT_TRUE(same_bits(a[i].positions, b[i].positions)) << "walker " << a[i].walker;
    EXPECT_TRUE(same_bits(a[i].velocities, b[i].velocities)) << "walker " << a[i].walker;
    EXPECT_TRUE(same_bits(a[i].box, b[i].box)) << "walker " << a[i].walker;
  }
}

TEST_F(FinalStateTest, FinalStatesRoundTripBitwise) {
  auto r0 = make_record(0);
  add_final_states(r0, /*velocities=*/true, /*box=*/true);
  auto r1 = make_record(1, Shape{.walkers = 3, .failed = {}});
  add_final_states(r1, /*velocities=*/false, /*box=*/false);
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(r0);
    store.commit(r1);
  }
  const auto store = RunStore::open(dir_, RunStore::Mode::ReadOnly);
  const auto s0 = store.load_final_states(0);
  ASSERT_EQ(s0.size(), 3u);  // walker 2 failed
  EXPECT_EQ(s0[2].walker, 3);
  expect_same_final_states(s0, r0.final_states);
  const auto s1 = store.load_final_states(1);
  expect_same_final_states(s1, r1.final_states);
  EXPECT_TRUE(s1.front().velocities.empty());
  EXPECT_TRUE(s1.front().box.empty());
  EXPECT_THROW(store.load_final_states(2), core::InputError);
}

TEST_F(FinalStateTest, FinalStatesMustMatchTheOkWalkers) {
  auto r = make_record(0);
  add_final_states(r, true, false);
  r.final_states.pop_back();
  auto store = RunStore::create(dir_, test_meta());
  EXPECT_THROW(store.commit(r), core::InternalError);
}

TEST_F(FinalStateTest, WeightsReadBack) {
  auto r = make_record(0);
  const std::vector<double> weights = {0.25, 1.0 / 3.0, 0.0, 4.9e-324};
  for (std::size_t i = 0; i < r.walkers.size(); ++i) r.walkers[i].weight = weights[i];
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(r);
  }
  const auto store = RunStore::open(dir_, RunStore::Mode::ReadOnly);
  const auto loaded = store.load_iterations();
  ASSERT_EQ(loaded.size(), 1u);
  ASSERT_EQ(loaded[0].walkers.size(), weights.size());
  for (std::size_t i = 0; i < weights.size(); ++i) {
    EXPECT_TRUE(same_bits(loaded[0].walkers[i].weight, weights[i])) << i;
    EXPECT_TRUE(same_bits(store.walker_placements(0)[i].weight, weights[i])) << i;
  }
}

TEST_F(FinalStateTest, ElementStatesAreVersionedBlobs) {
  auto r = make_record(0);
  r.state_versions = {{"spawner", 3}};  // resolution and iteration default to version 1
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(r);
  }
  const auto store = RunStore::open(dir_, RunStore::Mode::ReadOnly);
  // The whole state reads back as written, with each element's version.
  const auto loaded = store.load_iterations();
  EXPECT_EQ(loaded[0].state.dump(), r.state.dump());
  EXPECT_EQ(loaded[0].state_versions,
            (std::map<std::string, int>{{"iteration", 1}, {"resolution", 1}, {"spawner", 3}}));
  EXPECT_EQ(store.summaries()[0].state, r.state);

  EXPECT_EQ(*store.load_element_state(0, "spawner", 3), r.state.at("spawner"));
  EXPECT_FALSE(store.load_element_state(0, "msm", 1).has_value());
  const std::map<std::string, int> expected = {{"spawner", 3}, {"resolution", 1}, {"iteration", 1}};
  EXPECT_EQ(store.load_state(0, expected).dump(), r.state.dump());

  try {
    store.load_element_state(0, "spawner", 4);
    FAIL() << "a version mismatch must be refused";
  } catch (const core::InputError& e) {
    EXPECT_TRUE(trails::test_support::contains(
        e.what(),
        "element 'spawner' in iteration 0 has version 3, this Trails "
        "reads version 4"))
        << e.what();
    EXPECT_EQ(e.exit_code(), 2);
  }
  auto older = expected;
  older["spawner"] = 2;
  EXPECT_THROW(store.load_state(0, older), core::InputError);
  auto unknown = expected;
  unknown.erase("resolution");
  try {
    store.load_state(0, unknown);
    FAIL() << "an element the reader does not know must be refused";
  } catch (const core::InputError& e) {
    EXPECT_TRUE(trails::test_support::contains(
        e.what(), "element 'resolution', which this Trails does not know"))
        << e.what();
  }
}

TEST_F(FinalStateTest, ReducedRecordPolicyStoresSelectedAtomsAsFloat32) {
  auto r = make_record(0, Shape{.n_atoms = 5});
  add_final_states(r, true, false);
  r.record_policy.atoms = {1, 3, 4};
  r.record_policy.float32 = true;
  for (std::size_t k = 0; k < r.spawns.size(); ++k) {
    r.spawn_starts.push_back({static_cast<std::int64_t>(k), frame_positions(r, 0, 1), {}, {}});
  }
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(r);
  }
  const auto store = RunStore::open(dir_, RunStore::Mode::ReadOnly);
  const auto policy = store.record_policy(0);
  EXPECT_EQ(policy.atoms, r.record_policy.atoms);
  EXPECT_TRUE(policy.float32);
  // Frames come back as the selected atoms, each coordinate rounded to float32.
  const std::vector<core::FrameKey> keys = {{0, 3, 4}, {0, 0, 0}};
  const auto frames = store.load_positions(keys);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto full = frame_positions(r, keys[i].walker, keys[i].frame);
    std::vector<double> expected;
    for (int a : r.record_policy.atoms) {
      for (int d = 0; d < r.spatial_dim; ++d) {
        expected.push_back(
            static_cast<float>(full[static_cast<std::size_t>(a * r.spatial_dim + d)]));
      }
    }
    EXPECT_TRUE(same_bits(frames[i], expected)) << keys[i].to_string();
  }
  // Final states and spawn starts are every atom at full precision.
  expect_same_final_states(store.load_final_states(0), r.final_states);
  expect_same_final_states(store.load_spawn_starts(0), r.spawn_starts);
}

TEST_F(FinalStateTest, DefaultPolicyStoresEveryAtomAndNoSpawnStarts) {
  auto r = make_record(0);
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(r);
  }
  const auto store = RunStore::open(dir_, RunStore::Mode::ReadOnly);
  EXPECT_FALSE(store.record_policy(0).reduces());
  EXPECT_TRUE(store.load_spawn_starts(0).empty());
  EXPECT_TRUE(store.load_final_states(0).empty());
  const std::vector<core::FrameKey> keys = {{0, 1, 2}};
  EXPECT_TRUE(same_bits(store.load_positions(keys)[0], frame_positions(r, 1, 2)));
}

// A ledger as schema 1 wrote it: user_version and meta say 1, walkers has no weight, the state
// is one JSON column of iterations, and there is no element_state table.
void age_to_schema_1(const fs::path& ledger) {
  sql(ledger,
      "PRAGMA user_version=1; UPDATE meta SET value='1' WHERE key='schema_version';"
      "UPDATE meta SET value='0.1.0' WHERE key='trails_version';"
      "DROP TABLE element_state; ALTER TABLE walkers DROP COLUMN weight;"
      "ALTER TABLE iterations ADD COLUMN state TEXT NOT NULL DEFAULT '{}';");
}

TEST_F(FinalStateTest, RunOfSchema1IsRefusedWithWhatToDo) {
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(make_record(0));
  }
  age_to_schema_1(RunStore::ledger_path(dir_));
  const auto before = snapshot(dir_);
  for (auto mode : {RunStore::Mode::ReadOnly, RunStore::Mode::ReadWrite}) {
    try {
      RunStore::open(dir_, mode);
      FAIL() << "a schema 1 run must be refused";
    } catch (const core::InputError& e) {
      const std::string msg = e.what();
      EXPECT_TRUE(trails::test_support::contains(
          msg,
          "this run was made by an older Trails 0.1.0 (schema 1; this "
          "Trails reads schema " +
              std::to_string(kSchemaVersion)))
          << msg;
      EXPECT_TRUE(trails::test_support::contains(msg, "with the Trails that made it")) << msg;
      EXPECT_TRUE(trails::test_support::contains(msg, "nothing was changed")) << msg;
      EXPECT_EQ(e.exit_code(), 2);
    }
  }
  EXPECT_EQ(snapshot(dir_), before);
}

}  // namespace
}  // namespace trails::store::test
