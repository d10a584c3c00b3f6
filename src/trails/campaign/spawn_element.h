// Private to the campaign module: the spawning element (docs/architecture.md, "Campaign
// elements"). Owns the spawner (spawning.spawn_scheme, spawner_factory.h) and chooses the next
// walkers' frames from the coverage element's pool, with the iteration's own random stream;
// a weighted spawner's weights and recycled flux go into the record. State key "spawner".
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "trails/campaign/campaign_element.h"
#include "trails/campaign/coverage_element.h"
#include "trails/features/frame_history.h"
#include "trails/msm/msm_stage.h"
#include "trails/spawners/spawner.h"

namespace trails::campaign {

class SpawnElement final : public IterationElement, public CheckpointClient {
 public:
  static constexpr StateKey kKey{"spawner", 1};

  // `msm` gives the MSM spawner its latest model (an inert stage gives none).
  SpawnElement(std::unique_ptr<spawners::Spawner> spawner, std::uint64_t random_seed, int walkers,
               const features::FrameHistory& history, const CoverageElement& coverage,
               const msm::MsmStage& msm);

  std::string_view name() const override { return "spawn"; }
  // Fills it.chosen (history indices) and it.rec.spawns (slot, pool index, source frame).
  void run(IterationState& it) override;

  std::vector<StateKey> state_keys() const override { return {kKey}; }
  nlohmann::json state() const override { return {{kKey.key, spawner_->state()}}; }
  void restore(const nlohmann::json& state) override { spawner_->restore(state.at(kKey.key)); }

  spawners::Spawner& spawner() { return *spawner_; }
  const spawners::Spawner& spawner() const { return *spawner_; }
  // The weight of each of the n walkers the last spawn started: the weighted spawner's for its
  // slots, else empty (equal weights).
  std::vector<double> slot_weights(std::size_t n) const;

 private:
  std::unique_ptr<spawners::Spawner> spawner_;
  std::uint64_t random_seed_;
  int walkers_;
  const features::FrameHistory& history_;
  const CoverageElement& coverage_;
  const msm::MsmStage& msm_;
};

}  // namespace trails::campaign
