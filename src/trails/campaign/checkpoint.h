// Private to the campaign module: the campaign's state as the union of its elements' keyed
// blobs (docs/architecture.md, "Campaign elements"). Writing and reading go through the same
// clients, so what a commit stores is exactly what --resume restores.
#pragma once

#include <map>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "trails/campaign/campaign_element.h"

namespace trails::campaign {

// Every key any campaign element writes, with the version this build reads (the run store
// checks each stored blob against it on resume). One line per element type.
const std::map<std::string, int>& campaign_state_versions();

// The clients' blobs merged into one object (key -> value); a key written twice is a bug.
nlohmann::json state_of(std::span<const CheckpointClient* const> clients);

// Hands `state` to each client of `phase`, in order.
void restore_clients(std::span<CheckpointClient* const> clients, const nlohmann::json& state,
                     CheckpointClient::RestorePhase phase);

}  // namespace trails::campaign
