// system.project_file (compat:project-file-cvs): the fixed CVs of a molecular run come from the
// user's Python extract_cvs(trajectories, top_file, conf_file). Per iteration every ok walker's
// frames are written to RUN_DIR/project_file.tmp/iteration_<N>_<walker>.xtc; the projection's one
// long-lived Python worker (features/python_worker.h: engine.python running
// share/trails/project_file_worker.py, the module imported once) calls extract_cvs on them in
// walker order and saves the (n_frames, len(n_bins)) float64 result as .npy, which is read back;
// the directory is then removed. Calls are serialized (one scratch directory, one worker); see
// docs/cvs.md for the contract.
#pragma once

#include <filesystem>
#include <memory>
#include <span>

#include "trails/config/campaign_config.h"
#include "trails/features/projection.h"

namespace trails::campaign {

// Preflight (`trails check`, run start): imports the module in a one-shot engine.python
// process (share/trails/run_project_file.py) and finds a
// callable extract_cvs. Throws ConfigError naming system.project_file, the file and Python's
// message (a traceback tail for import errors). Its scratch is a private directory under
// $TMPDIR, removed again: the run directory is not touched.
void check_project_file(const config::CampaignConfig& config);

// The projection (built by `trails run` and, in a scratch run directory, `trails check`).
// Before returning it calls extract_cvs once on a one-frame trajectory of the start structure
// (start_positions_nm: n_atoms × 3, start_box: 9 values or empty), so a module that raises, returns
// the wrong number of columns or non-finite values fails before any MD: ConfigError. At run time
// the same problems are an EngineError naming the iteration and file.
std::unique_ptr<features::Projection> make_project_file_projection(
    const config::CampaignConfig& config, std::span<const double> start_positions_nm,
    std::span<const double> start_box);

// share/trails/run_project_file.py in the source tree; TRAILS_PROJECT_FILE_SCRIPT overrides.
std::filesystem::path project_file_script();

}  // namespace trails::campaign
