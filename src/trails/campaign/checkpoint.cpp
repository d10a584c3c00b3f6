#include "trails/campaign/checkpoint.h"

#include "trails/campaign/commit_element.h"
#include "trails/campaign/coverage_element.h"
#include "trails/campaign/learned_space_element.h"
#include "trails/campaign/msm_element.h"
#include "trails/campaign/packing_state.h"
#include "trails/campaign/spawn_element.h"
#include "trails/core/error.h"

namespace trails::campaign {

const std::map<std::string, int>& campaign_state_versions() {
  static const std::map<std::string, int> versions = [] {
    std::map<std::string, int> v;
    for (const StateKey& k :
         {SpawnElement::kKey, CoverageElement::kKey, CommitElement::kKey, LearnedSpaceElement::kKey,
          LearnedSpaceElement::kModelKey, MsmElement::kKey, PackingState::kKey}) {
      v.emplace(k.key, k.version);
    }
    return v;
  }();
  return versions;
}

nlohmann::json state_of(std::span<const CheckpointClient* const> clients) {
  nlohmann::json state = nlohmann::json::object();
  for (const auto* client : clients) {
    auto blobs = client->state();
    for (auto& [key, value] : blobs.items()) {
      TRAILS_CHECK(!state.contains(key) && campaign_state_versions().contains(key),
                   "each state key is written by one element and listed in the versions");
      state[key] = std::move(value);
    }
  }
  return state;
}

void restore_clients(std::span<CheckpointClient* const> clients, const nlohmann::json& state,
                     CheckpointClient::RestorePhase phase) {
  for (auto* client : clients) {
    if (client->restore_phase() == phase) client->restore(state);
  }
}

}  // namespace trails::campaign
