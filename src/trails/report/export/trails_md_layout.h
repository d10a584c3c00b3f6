// `trails export RUN_DIR --trails-md-layout DIR` (docs/trails-md-compatibility.md,
// "compat:output-layout"): a run's committed history laid out as Trails-MD 1.1 writes its
// outdir, so that a user's scripts that glob iter_*/iteration_*_*.xtc or read iter_N/cvs.npz
// keep working: DIR/iter_N/iteration_N_W.xtc per ok walker (molecular runs, the prepared
// topology's atoms, walker-local times), DIR/iter_N/cvs.npz (key `cvs`, rows = ok walkers in
// walker order, each walker's frames consecutive: Trails-MD's order), DIR/iter_N/features.npz
// (key `features`, the same rows) where the run stored feature rows (save_features: true), and
// DIR/output.log (the run's own). DIR must be new or empty and outside the run; it is built under a
// temporary name and renamed into place, so a failure leaves nothing. Reads the run store only.
#pragma once

#include <cstdint>
#include <filesystem>

namespace trails::report {

struct TrailsMdLayout {
  std::int64_t iterations = 0;
  std::int64_t trajectories = 0;  // iteration_N_W.xtc files (0 for a built-in run)
  std::int64_t frames = 0;
  std::int64_t feature_files = 0;  // iter_N/features.npz files (0 without save_features)
};

// UsageError (exit 2, nothing written) for a DIR that exists and is not empty, or lies inside
// the run directory.
TrailsMdLayout export_trails_md_layout(const std::filesystem::path& run_dir,
                                       const std::filesystem::path& dir);

}  // namespace trails::report
