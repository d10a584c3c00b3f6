// What a swarm run gives its user, rebuilt from the run store alone (docs/swarm.md, "Outputs"),
// so a resumed run writes the same bytes as an uninterrupted one. Per chain k, in
// RUN_DIR/path_k/: metrics.csv (one row per cycle), reactive_path.csv (the saved anchors' CVs,
// step and time) and, for molecular runs, reactive_path.xtc and reactive_path.pdb.
// `trails plot` of a swarm run draws progress.png (progress against cycle, every chain) and,
// for a 2-D built-in potential, path.png (every chain's path over the potential's contours).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "trails/store/cycle_record.h"
#include "trails/store/run_store.h"

namespace trails::report {

// metrics.csv's columns and its rows (one per cycle, as text), which `trails report` shows too.
extern const std::vector<std::string> kSwarmMetricColumns;
std::vector<std::vector<std::string>> swarm_metric_rows(
    const std::vector<store::CycleRecord>& chain, double dt);
// The engine's time step (engine.dt in its time unit), which path_time counts in.
double swarm_dt(const store::RunMeta& meta);

// Every committed cycle record of a swarm run, by chain (index = chain), in cycle order.
std::vector<std::vector<store::CycleRecord>> swarm_chains(const store::RunStore& store);

// `trails status` of a swarm run: per chain its committed cycles, convergence and progress.
nlohmann::json swarm_status(const store::RunStore& store);
std::string format_swarm_status(const nlohmann::json& swarm);

// Writes every chain's outputs (replacing earlier ones atomically); returns the files written.
std::vector<std::filesystem::path> write_swarm_outputs(const std::filesystem::path& run_dir);

// progress.png's y label: the progress metric of the run's mode (docs/swarm.md, "Progress") with
// the CVs' unit where they share one; `cv_dim` CVs.
std::string swarm_progress_label(const store::RunMeta& meta, int cv_dim);
// The cycle axis' tick step up to cycle `last`: 1, 2 or 5 times a power of ten, at most eight
// ticks, never a fraction of a cycle.
std::int64_t cycle_tick_step(std::int64_t last);

// progress.png and (2-D built-in) path.png into out_dir; returns the pictures drawn.
std::vector<std::filesystem::path> plot_swarm(const std::filesystem::path& run_dir,
                                              const std::filesystem::path& out_dir);

}  // namespace trails::report
