// Chooses the campaign's projection from its configuration and engine (private to the campaign
// module): identity for the built-in engine; a CvSet over the engine's topology otherwise.
#pragma once

#include <memory>

#include "trails/config/campaign_config.h"
#include "trails/engines/engine.h"
#include "trails/features/projection.h"

namespace trails::campaign {

std::unique_ptr<features::Projection> make_projection(const config::CampaignConfig& config,
                                                      const engines::Engine& engine);

}  // namespace trails::campaign
