// The shards' record policy of a campaign (output.record_selection, output.precision; see
// docs/configuration.md): the selection resolved on the prepared topology. Campaign-internal.
// Throws core::ConfigError (exit 2) naming output.record_selection for a selection that matches
// no atom or a system without a topology.
#pragma once

#include "trails/config/campaign_config.h"
#include "trails/engines/engine.h"
#include "trails/store/records.h"

namespace trails::campaign {

store::RecordPolicy make_record_policy(const config::CampaignConfig& config,
                                       const engines::Engine& engine);

}  // namespace trails::campaign
