// Chooses the campaign's spawner from its configuration (private to the campaign module): the
// one table of spawning schemes (spawning.spawn_scheme, checked by config/; docs/spawning.md),
// and the density spawner's options, which the initial-trajectory seeding uses too.
#pragma once

#include <memory>

#include "trails/config/campaign_config.h"
#include "trails/spawners/density_spawner.h"
#include "trails/spawners/spawner.h"

namespace trails::campaign {

spawners::DensityOptions density_options(const config::CampaignConfig& c);

std::unique_ptr<spawners::Spawner> make_spawner(const config::CampaignConfig& c);

}  // namespace trails::campaign
