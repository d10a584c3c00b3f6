// `trails status`: a snapshot of a run directory, readable while a campaign is writing it
// (read-only ledger access; never modifies anything).
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace trails::report {

nlohmann::json run_status(const std::filesystem::path& run_dir);
// True while a campaign or swarm holds the run directory (its writer's flock on the ledger).
bool campaign_running(const std::filesystem::path& run_dir);
std::string format_status(const nlohmann::json& status);

}  // namespace trails::report
