// Second pass: rules that involve more than one key (engine availability, n_bins promotion,
// CV-space bounds, dimensions of start/target versus the built-in potential, step >= stride),
// and the typed CampaignConfig built from the first pass. Keys that already failed their own
// checks are skipped here so one mistake yields one message. Internal to the config module.
#pragma once

#include <optional>
#include <vector>

#include "trails/config/campaign_config.h"
#include "trails/config/problems.h"
#include "trails/config/reader.h"

namespace trails::config::detail {

// Size bounds (check_cross_fields): walkers per iteration, and worker threads after
// spawning.max_workers is capped at spawning.walker (build_config).
inline constexpr int kMaxWalkers = 100000;
inline constexpr int kMaxWorkers = 1024;

// The n_bins in effect: top-level n_bins, else spawning.n_bins (Trails-MD's promotion), else the
// default. `source` receives the dotted key it came from.
std::vector<int> effective_n_bins(const RawConfig& raw, std::string* source = nullptr);

// Particle dimension of the built-in potential, or nullopt when it cannot be known (engine
// not builtin, or potential/dimension invalid).
std::optional<int> builtin_dimension(const RawConfig& raw);

void check_cross_fields(const RawConfig& raw, Problems& problems);
// engine.md_engine is available and has what it needs; built-in-only keys only with it (part of
// check_cross_fields, also run by the swarm loader).
void check_engine(const RawConfig& raw, Problems& problems);
// The output block against the engine, the spawning window and the space (output_checks.cpp).
void check_output(const RawConfig& raw, Problems& problems);

// execution.devices / engine.gpu_ids / workers_per_device (execution_checks.cpp).
void check_execution(const RawConfig& raw, Problems& problems);

// Typed view of the first pass (meaningful only when no problem was reported).
CampaignConfig build_config(const RawConfig& raw);

}  // namespace trails::config::detail
