#include "trails/campaign/spawner_factory.h"

#include <optional>
#include <vector>

#include "trails/core/error.h"
#include "trails/spawners/fps_spawner.h"
#include "trails/spawners/lof_spawner.h"
#include "trails/spawners/msm_spawner.h"
#include "trails/spawners/voronoi_spawner.h"
#include "trails/spawners/we_spawner.h"

namespace trails::campaign {

spawners::DensityOptions density_options(const config::CampaignConfig& c) {
  spawners::DensityOptions o;
  o.hard = c.spawning.spawn_type == config::SpawnType::Hard;
  o.recent_window = c.spawning.recent_density_window;
  if (c.spawning.search_mode == config::SearchMode::Target) o.target = c.spawning.target;
  o.binning = binner_options(c);
  return o;
}

binning::BinnerOptions binner_options(const config::CampaignConfig& c) {
  return binning::BinnerOptions{binning::binning_scheme(c.binning.scheme), c.binning.n_fine,
                                c.binning.smoothing};
}

// The one table of spawning schemes (spawning.spawn_scheme, checked by config/).
std::unique_ptr<spawners::Spawner> make_spawner(const config::CampaignConfig& c) {
  std::optional<std::vector<double>> target;
  if (c.spawning.search_mode == config::SearchMode::Target) target = c.spawning.target;
  const std::string& scheme = c.spawning.spawn_scheme;
  if (scheme == "msm") {
    return std::make_unique<spawners::MsmSpawner>(spawners::MsmSpawnerOptions{
        c.msm.spawn_alpha, c.msm.spawn_leverage, c.msm.spawn_uncertainty,
        c.spawning.voronoi_clusters, c.random_seed, target});
  }
  if (scheme == "voronoi") {
    return std::make_unique<spawners::VoronoiSpawner>(
        spawners::VoronoiOptions{c.spawning.voronoi_clusters, c.spawning.voronoi_periodic, target});
  }
  if (scheme == "lof") {
    return std::make_unique<spawners::LofSpawner>(
        spawners::LofOptions{c.spawning.lof_neighbors, target});
  }
  if (scheme == "we") {
    return std::make_unique<spawners::WeSpawner>(spawners::WeOptions{
        c.spawning.we_per_bin, c.spawning.we_target_per_bin, c.spawning.recycle_target,
        c.spawning.recycle_basis_index, binner_options(c)});
  }
  if (scheme == "fps") return std::make_unique<spawners::FpsSpawner>(spawners::FpsOptions{target});
  TRAILS_CHECK(scheme == "density", "spawn_scheme admitted by config/");
  return std::make_unique<spawners::DensitySpawner>(density_options(c));
}

std::optional<binning::ResolutionController::CellLadder> cell_ladder(
    const spawners::Spawner& spawner, const config::CampaignConfig& c) {
  if (const auto cells = spawner.cells()) {
    return binning::ResolutionController::CellLadder{*cells, c.spawning.voronoi_max_clusters};
  }
  return std::nullopt;
}

}  // namespace trails::campaign
