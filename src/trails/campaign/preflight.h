// Checks made before anything is written: can the run directory be created, and does its current
// state fit the request (new run: absent or empty; resume: a Trails run store). Reads only.
#pragma once

#include <filesystem>

#include "trails/config/campaign_config.h"

namespace trails::campaign {

enum class RunDirState { Absent, Empty, RunStore, Foreign };

RunDirState inspect_run_dir(const std::filesystem::path& dir);

// InputError naming the directory if it (or the path to it) cannot be created or written.
void check_outdir_writable(const std::filesystem::path& dir);

// Everything `trails run` verifies before its first write; throws InputError/UsageError, and
// ConfigError for a system.project_file that does not import or has no extract_cvs.
void preflight(const config::CampaignConfig& config, bool resume);

// `trails check`: builds the engine and the CV projection as `trails run` would (force field,
// selections, CV columns against n_bins) without touching the run directory: a molecular
// engine prepares its system into a scratch directory that is removed afterwards.
void check_engine_and_cvs(const config::CampaignConfig& config);

}  // namespace trails::campaign
