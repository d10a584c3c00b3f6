// Second pass: rules that involve more than one key, one file per subject: the grid, spawning and
// sizes (cross_checks.cpp), the engine (engine_checks.cpp), the molecular input files
// (input_checks.cpp), learned spaces (learned_checks.cpp), the MSM (msm_checks.cpp), the output
// block (output_checks.cpp), execution (execution_checks.cpp); and the typed CampaignConfig built
// from the first pass (build.cpp). Keys that already failed their own checks are skipped here so
// one mistake yields one message. Internal to the config module.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trails/config/campaign_config.h"
#include "trails/config/problems.h"
#include "trails/config/reader.h"

namespace trails::config::detail {

// Size bounds (check_cross_fields): walkers per iteration, and worker threads after
// spawning.max_workers is capped at spawning.walker (build_config).
inline constexpr int kMaxWalkers = 100000;
inline constexpr int kMaxWorkers = 1024;
// The swarm's chains (pathgennie.paths), and trials queued per cycle (paths × max_trial): each
// trial task holds its start configuration (docs/swarm.md).
inline constexpr int kMaxSwarmPaths = 10000;
inline constexpr std::int64_t kMaxSwarmTrialsPerCycle = 1000000;

// The n_bins in effect: top-level n_bins, else spawning.n_bins (Trails-MD's promotion), else the
// default. `source` receives the dotted key it came from.
std::vector<int> effective_n_bins(const RawConfig& raw, std::string* source = nullptr);

// Particle dimension of the built-in potential, or nullopt when it cannot be known (engine
// not builtin, or potential/dimension invalid).
std::optional<int> builtin_dimension(const RawConfig& raw);

// Shared by the checks below (cross_checks.cpp).
bool is_builtin(const RawConfig& raw);
// engine.md_engine is openmm, or absent (Trails-MD's default engine).
bool is_openmm(const RawConfig& raw);
bool usable_list(const RawConfig& raw, const std::string& key);
// Where element i of a list value was written (the value's position when unknown).
Position element_or_value(const Entry& e, std::size_t i);
// "1 axis", "3 axes".
std::string count(std::size_t n, const char* one, const char* many);

void check_cross_fields(const RawConfig& raw, Problems& problems);
// engine.md_engine is available and has what it needs; built-in-only keys only with it (part of
// check_cross_fields, also run by the swarm loader).
void check_engine(const RawConfig& raw, Problems& problems);
// A molecular engine starts from its structure: system.start (points of a point system) refused,
// with `who` naming the engine (engine_checks.cpp).
void refuse_start_point(const RawConfig& raw, Problems& problems, const std::string& who);
// Built-in potential dimensions against n_bins and system.start (engine_checks.cpp).
void check_builtin_dimensions(const RawConfig& raw, Problems& problems);
// The molecular inputs: which structure/topology formats combine, system.project_file against the
// engine and cvs:, system.trajectory_topology_file's format (input_checks.cpp).
void check_molecular_inputs(const RawConfig& raw, Problems& problems);
void check_project_file(const RawConfig& raw, Problems& problems);
// Learned-space dimensions, lags and feature keys (learned_checks.cpp).
void check_learned_space(const RawConfig& raw, Problems& problems);
void check_learned_features(const RawConfig& raw, Problems& problems);
// msm.* (msm_checks.cpp).
void check_msm(const RawConfig& raw, Problems& problems);
// spawning.inherit_velocities and recycle_target (kinetics_checks.cpp).
void check_kinetics(const RawConfig& raw, Problems& problems);
// The output block against the engine, the spawning window and the space (output_checks.cpp).
void check_output(const RawConfig& raw, Problems& problems);

// execution.devices / engine.gpu_ids / workers_per_device (execution_checks.cpp).
void check_execution(const RawConfig& raw, Problems& problems);

// Typed view of the first pass (meaningful only when no problem was reported): the MD system
// both drivers read (the swarm loader calls it alone), and the whole campaign.
void build_md_system(const RawConfig& raw, MdSystemConfig& md);
CampaignConfig build_config(const RawConfig& raw);

}  // namespace trails::config::detail
