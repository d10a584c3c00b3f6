// `trails advise RUN_DIR` (docs/advise.md): where a campaign's wall time went — engine start-up,
// integration, idle slots, frame work, commit — per iteration and in total, and which settings
// (walker length, packing, walkers per iteration) the measurements say would raise its MD
// throughput, with the expected gain (advise_model.h). Read-only, like `trails status`: safe
// on a run that is still being written (committed iterations only).
// Errors: InputError (exit 2) for a directory that is not a run or has no committed iteration;
// UsageError (exit 2) for a swarm run.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "trails/analysis/advise_model.h"

namespace trails::report {

nlohmann::json run_advice(const std::filesystem::path& run_dir,
                          const analysis::AdviceOptions& options = {});
std::string format_advice(const nlohmann::json& advice);

}  // namespace trails::report
