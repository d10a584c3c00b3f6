#include "trails/campaign/spawner_factory.h"

#include <optional>
#include <vector>

#include "trails/core/error.h"
#include "trails/spawners/msm_spawner.h"

namespace trails::campaign {

spawners::DensityOptions density_options(const config::CampaignConfig& c) {
  spawners::DensityOptions o;
  o.hard = c.spawning.spawn_type == config::SpawnType::Hard;
  o.recent_window = c.spawning.recent_density_window;
  if (c.spawning.search_mode == config::SearchMode::Target) o.target = c.spawning.target;
  return o;
}

// The one table of spawning schemes (spawning.spawn_scheme, checked by config/).
std::unique_ptr<spawners::Spawner> make_spawner(const config::CampaignConfig& c) {
  if (c.spawning.spawn_scheme == "msm") {
    std::optional<std::vector<double>> target;
    if (c.spawning.search_mode == config::SearchMode::Target) target = c.spawning.target;
    return std::make_unique<spawners::MsmSpawner>(spawners::MsmSpawnerOptions{
        c.msm.spawn_alpha, c.msm.spawn_leverage, c.msm.spawn_uncertainty,
        c.spawning.voronoi_clusters, c.random_seed, target});
  }
  TRAILS_CHECK(c.spawning.spawn_scheme == "density", "spawn_scheme admitted by config/");
  return std::make_unique<spawners::DensitySpawner>(density_options(c));
}

}  // namespace trails::campaign
