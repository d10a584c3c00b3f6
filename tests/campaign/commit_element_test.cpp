// The commit element (campaign/commit_element.h) and the campaign's state (checkpoint.h): a
// commit stores every client's keyed blobs plus "target_iterations" in a real run store, the
// store gives back exactly that state under the versions every element declares, and restoring
// it into fresh elements reproduces it.
#include <gtest/gtest.h>

#include "../store/store_test_util.h"
#include "element_world.h"
#include "trails/campaign/commit_element.h"
#include "trails/campaign/packing_state.h"

using namespace trails;
using campaign::test::ElementWorld;

namespace {

class CommitElementTest : public store::test::StoreTest {};

// Iteration 0 of `world` as a record the store accepts, with its pending shard.
campaign::IterationState iteration_zero(ElementWorld& world, store::RunStore& run) {
  auto it = world.step(0);
  const auto frames = store::test::make_record(0);
  auto spawns = std::move(it.rec.spawns);
  const auto occupied = it.rec.occupied_bins;
  it.rec = frames;  // walkers, frames and CVs the store checks; the elements' parts below
  it.rec.spawns.clear();
  for (auto& s : spawns) {  // sources that exist in this record
    s.source = frames.spawns[static_cast<std::size_t>(s.slot) % frames.spawns.size()].source;
    it.rec.spawns.push_back(s);
  }
  it.rec.occupied_bins = occupied;
  it.rec.state_versions = campaign::campaign_state_versions();
  store::ShardLayout layout;
  layout.n_atoms = frames.n_atoms;
  layout.spatial_dim = frames.spatial_dim;
  layout.cv_dim = frames.cv_dim;
  it.shard.emplace(run.begin_shard(0, layout));
  it.shard->append(frames.positions);
  it.t_analysis = campaign::IterationState::Clock::now();
  return it;
}

}  // namespace

TEST(CampaignState, EveryElementKeyIsVersioned) {
  ElementWorld w;
  campaign::PackingState packing;
  std::vector<const campaign::CheckpointClient*> clients = {w.coverage.get(), w.spawn.get(),
                                                            w.msm.get(), &packing};
  for (const auto* c : clients) {
    for (const auto& k : c->state_keys()) {
      EXPECT_EQ(campaign::campaign_state_versions().at(k.key), k.version) << k.key;
    }
  }
  EXPECT_EQ(packing.state(), nlohmann::json::object());  // no tuner: nothing to commit
}

TEST_F(CommitElementTest, CommitsEveryClientsStateAndResumeReadsItBack) {
  ElementWorld w(/*msm_enabled=*/true);
  auto run = store::RunStore::create(dir_, store::test::test_meta());
  const auto clients = w.clients();
  campaign::CommitElement commit({clients.begin(), clients.end()}, 9, run, dir_);
  auto it = iteration_zero(w, run);
  const auto expected = commit.campaign_state();
  EXPECT_EQ(expected.at("target_iterations"), 9);
  for (const char* key : {"resolution", "spawner", "msm"}) EXPECT_TRUE(expected.contains(key));

  commit.run(it);
  ASSERT_EQ(run.last_committed(), std::optional<std::int64_t>(0));
  const auto stored = run.load_state(0, campaign::campaign_state_versions());
  EXPECT_EQ(stored, expected);

  auto fresh = ElementWorld::resumed(stored, 0, /*msm_enabled=*/true);
  auto restored = fresh->state();
  restored["target_iterations"] = 9;  // the commit element's own key
  EXPECT_EQ(restored, expected);
}
