// The start-states element (campaign/start_states_element.h): the next walkers start from the
// spawned frames (CV rows when they are the coordinates, else full-precision frames), each with
// its parent and per-walker seed, and a resumed element rebuilds exactly those starts from the
// committed record in a real run store, whether the shards hold the frames or the record policy
// reduced them and the starts were stored in full.
#include <gtest/gtest.h>

#include "../store/store_test_util.h"
#include "element_world.h"
#include "trails/campaign/start_states_element.h"
#include "trails/core/seeds.h"

using namespace trails;
using campaign::test::ElementWorld;

namespace {

class StartStatesElementTest : public store::test::StoreTest {};

campaign::StartStatesOptions options(bool from_cv_rows, bool store_starts, int n_atoms,
                                     int spatial_dim) {
  return {n_atoms, spatial_dim, from_cv_rows, store_starts, false, 200, 20, 77};
}

void expect_same_starts(const campaign::StartStatesElement& a,
                        const campaign::StartStatesElement& b) {
  ASSERT_EQ(a.starts().size(), b.starts().size());
  for (std::size_t k = 0; k < a.starts().size(); ++k) {
    EXPECT_EQ(a.starts()[k].positions, b.starts()[k].positions) << k;  // bitwise
    EXPECT_EQ(a.starts()[k].box, b.starts()[k].box) << k;
    EXPECT_EQ(a.parent(k), b.parent(k)) << k;
  }
}

}  // namespace

TEST(StartStatesElement, CvRowsAreTheStartsWithParentsAndSeeds) {
  ElementWorld w;
  const std::optional<store::RunStore> no_store;
  campaign::StartStatesElement starts(options(true, false, 1, 2), w.history, nullptr, *w.spawn,
                                      no_store);
  auto it = w.step(0);
  starts.run(it);
  ASSERT_EQ(starts.starts().size(), it.chosen.size());
  for (std::size_t k = 0; k < it.chosen.size(); ++k) {
    const auto p = w.history.point(it.chosen[k]);
    EXPECT_EQ(starts.starts()[k].positions, std::vector<double>(p.begin(), p.end()));
    EXPECT_EQ(starts.parent(k), std::optional<core::FrameKey>(it.rec.spawns[k].source));
  }
  const auto tasks = starts.make_tasks(1);
  ASSERT_EQ(tasks.size(), it.chosen.size());
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    EXPECT_EQ(tasks[k].seed, core::walker_seed(77, 1, k));
    EXPECT_EQ(tasks[k].steps, 200);
    EXPECT_EQ(tasks[k].stride, 20);
    EXPECT_EQ(tasks[k].start.positions, starts.starts()[k].positions);
  }
}

TEST(StartStatesElement, TheFirstWalkersHaveNoParents) {
  ElementWorld w;
  const std::optional<store::RunStore> no_store;
  campaign::StartStatesElement starts(options(true, false, 1, 2), w.history, nullptr, *w.spawn,
                                      no_store);
  starts.start_with(std::vector<engines::Configuration>(3));
  EXPECT_EQ(starts.make_tasks(0).size(), 3U);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_FALSE(starts.parent(k).has_value());
}

TEST_F(StartStatesElementTest, AResumedElementStartsWhereTheRunWould) {
  for (const bool store_starts : {false, true}) {
    SCOPED_TRACE(store_starts ? "starts stored in full" : "starts read from the shard");
    std::filesystem::remove_all(dir_);
    ElementWorld w;
    std::optional<store::RunStore> run;
    run.emplace(store::RunStore::create(dir_, store::test::test_meta()));
    campaign::IterationState it;
    it.rec = store::test::make_record(0);
    campaign::StartStatesElement a(options(false, store_starts, it.rec.n_atoms, it.rec.spatial_dim),
                                   w.history, nullptr, *w.spawn, run);
    a.run(it);  // from the record's frames in memory
    EXPECT_EQ(it.rec.spawn_starts.size(), store_starts ? it.rec.spawns.size() : 0U);
    run->commit(it.rec);

    campaign::StartStatesElement b(options(false, store_starts, it.rec.n_atoms, it.rec.spatial_dim),
                                   w.history, nullptr, *w.spawn, run);
    b.resume(run->load_iterations().back());  // from the store
    expect_same_starts(a, b);
  }
}
