// Chooses the campaign's spawner from its configuration (private to the campaign module): the
// one table of spawning schemes (spawning.spawn_scheme, checked by config/; docs/spawning.md),
// and the density spawner's options, which the initial-trajectory seeding uses too.
#pragma once

#include <memory>
#include <optional>

#include "trails/binning/binner.h"
#include "trails/binning/resolution.h"
#include "trails/config/campaign_config.h"
#include "trails/spawners/density_spawner.h"
#include "trails/spawners/spawner.h"

namespace trails::campaign {

spawners::DensityOptions density_options(const config::CampaignConfig& c);

// binning.* as the binner's options (binning/binner.h: make_binner); the density spawner and
// the weighted-ensemble resampler bin with it.
binning::BinnerOptions binner_options(const config::CampaignConfig& c);

std::unique_ptr<spawners::Spawner> make_spawner(const config::CampaignConfig& c);

// A spawner with cells of its own (Voronoi) has the resolution ladder climb them, capped by
// spawning.voronoi_max_clusters (compat:resolution-ladder); others leave it to the grid.
std::optional<binning::ResolutionController::CellLadder> cell_ladder(
    const spawners::Spawner& spawner, const config::CampaignConfig& c);

}  // namespace trails::campaign
