// Checks made before anything is written: can the run directory be created, and does its current
// state fit the request (new run: absent or empty; resume: a Trails run store). Reads only.
#pragma once

#include <filesystem>
#include <optional>

#include "trails/config/campaign_config.h"
#include "trails/engines/engine.h"
#include "trails/store/run_store.h"
#include "trails/trajio/trajectory.h"

namespace trails::campaign {

enum class RunDirState { Absent, Empty, RunStore, Foreign };

RunDirState inspect_run_dir(const std::filesystem::path& dir);

// InputError naming the directory if it (or the path to it) cannot be created or written.
void check_outdir_writable(const std::filesystem::path& dir);

// Everything `trails run` verifies before its first write; throws InputError/UsageError, and
// ConfigError for a system.project_file that does not import or has no extract_cvs.
void preflight(const config::CampaignConfig& config, bool resume);

// --resume: the result-relevant keys that differ from the run's stored config. Those that may
// change on resume (config::changeable_on_resume) are returned, for the driver to record, with
// the iteration they take effect in; any other changed key is a ConfigError listing them. A
// store with no committed iteration accepts every change (nothing depends on the old values).
std::vector<store::ConfigChange> check_resume_config(const config::CampaignConfig& config,
                                                     const store::RunStore& store);

// Everything that needs the engine, shared by `trails check` and `trails run` before the first
// write: the memory one iteration's frames need against the memory available, and
// system.initial_trajectory read and checked against the engine (InputError naming the key).
void check_memory(const config::CampaignConfig& config, const engines::Engine& engine);
std::optional<trajio::Trajectory> read_initial_trajectory(const config::CampaignConfig& config,
                                                          const engines::Engine& engine);

// `trails check`: builds the engine and the CV projection as `trails run` would (force field,
// selections, CV columns against n_bins, a learned space's features) without touching the run
// directory: a molecular
// engine prepares its system into a scratch directory that is removed afterwards. Also
// check_memory, read_initial_trajectory, and for the built-in engine a short segment from each
// start point (a dt, kT or start that fails at once is an InputError, not a failed iteration 0).
void check_engine_and_cvs(const config::CampaignConfig& config);

}  // namespace trails::campaign
