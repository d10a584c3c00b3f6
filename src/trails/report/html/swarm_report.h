// The page `trails report` makes of a swarm run (docs/report.md, "Swarm runs"): its settings and
// engine, each path's outcome (converged, stalled, capped), the pictures of `trails plot`
// (progress.png, path.png) and every cycle's row of metrics.csv. Reads the run store only;
// run_report.cpp writes the page.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/store/run_store.h"

namespace trails::report {

// The page's body (navigation and sections). `status`: run_status(run_dir). Appends the
// pictures it embeds to `embedded` ("trails plot: progress.png").
std::string swarm_report_body(const std::filesystem::path& run_dir, const store::RunStore& store,
                              const nlohmann::json& status, const std::string& generated_at,
                              std::vector<std::string>& embedded);

}  // namespace trails::report
