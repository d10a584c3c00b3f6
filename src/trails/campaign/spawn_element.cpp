#include "trails/campaign/spawn_element.h"

#include "trails/core/error.h"
#include "trails/core/rng.h"

namespace trails::campaign {

SpawnElement::SpawnElement(std::unique_ptr<spawners::Spawner> spawner, std::uint64_t random_seed,
                           int walkers, const features::FrameHistory& history,
                           const CoverageElement& coverage, const msm::MsmStage& msm)
    : spawner_(std::move(spawner)),
      random_seed_(random_seed),
      walkers_(walkers),
      history_(history),
      coverage_(coverage),
      msm_(msm) {}

void SpawnElement::run(IterationState& it) {
  // Spawn from the candidate pool with this iteration's own random stream.
  core::Rng rng =
      core::Rng::stream(random_seed_, "spawn", static_cast<std::uint64_t>(it.iteration));
  const auto& tracker = coverage_.tracker();
  const spawners::SpawnPool pool{history_, tracker.pool_first_frame(), tracker.pool(),
                                 tracker.grid(), msm_.latest()};
  it.chosen = spawner_->choose(pool, walkers_, rng);
  if (const auto* w = spawner_->weighting()) {
    it.rec.recycled_flux = w->recycled_flux;
    it.rec.recycled_walkers = w->recycled_walkers;
  }
  for (std::size_t k = 0; k < it.chosen.size(); ++k) {
    it.rec.spawns.push_back({static_cast<std::int64_t>(k),
                             it.chosen[k] - tracker.pool_first_frame(),
                             history_.key_of(it.chosen[k])});
  }
}

std::vector<double> SpawnElement::slot_weights(std::size_t n) const {
  const auto* w = spawner_->weighting();
  if (w == nullptr || w->weights.empty()) return {};
  TRAILS_CHECK(w->weights.size() == n, "one weight per walker of the last spawn");
  return w->weights;
}

}  // namespace trails::campaign
