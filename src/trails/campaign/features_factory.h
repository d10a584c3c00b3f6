// Builds a campaign's learned-space feature source from its configuration and engine (private
// to the campaign module): the particle coordinates for the built-in engine; for OpenMM, every
// type Trails-MD can rank (adaptive_feature_type first, then the other
// feature_selection.candidate_feature_types) over the system.feature_selection atoms resolved
// on the prepared topology. Throws core::ConfigError naming the key for an empty selection or a
// type the system cannot give (phi_psi without a peptide backbone).
#pragma once

#include <memory>

#include "trails/config/campaign_config.h"
#include "trails/engines/engine.h"
#include "trails/features/feature_source.h"

namespace trails::campaign {

std::unique_ptr<features::FeatureSource> make_feature_source(const config::CampaignConfig& config,
                                                             const engines::Engine& engine);

}  // namespace trails::campaign
