// The --resume guard's comparison of two canonical configuration JSONs (a campaign's
// result_relevant_json(), a swarm's run record): a digest that detects any edit, and the dotted
// keys that differ, which a refused resume names. Used by both drivers and by stored space
// models; pure functions of their arguments (docs/reliability.md, "What may change on resume").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trails::config {

// Keys (dotted paths) whose values differ between two canonical JSONs. A block present on one
// side only names its own keys (output.position_precision, not output). Sorted.
std::vector<std::string> keys_changed(const nlohmann::json& before, const nlohmann::json& after);

// Hex SHA-256-free stable digest (FNV-1a 64 over canonical dump); enough to detect edits.
std::string digest_of(const nlohmann::json& canonical);

}  // namespace trails::config
