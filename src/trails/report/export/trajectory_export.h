// `trails export RUN_DIR --trajectory OUT.{xtc,dcd,pdb} [--iteration N] [--walker W]`: the stored
// frames of a molecular (OpenMM) run as a trajectory with the run's prepared topology
// (RUN_DIR/prepared/<digest>/topology.pdb; same atom order as the shards). Frames come in ledger
// order: iterations ascending, ok walkers in walker order, each walker's frames in time order.
// Times and steps are walker-local (export_segments.h): each segment starts at its parent
// frame's time. Beside OUT goes OUT.json, the sidecar naming every written frame (key,
// iteration, walker, frame, step, time in ps) and each segment's first frame index, so segment
// boundaries are visible in VMD/mdtraj. Built-in runs are refused (their particles are
// CV-space points, not atoms: use --cvs). Reads the run store only; bad requests (unknown
// iteration or walker, unknown extension, a refused output) write nothing.
#pragma once

#include <cstdint>
#include <filesystem>

#include "trails/report/export/export_segments.h"

namespace trails::report {

struct TrajectoryExportRequest {
  std::filesystem::path run_dir;
  std::filesystem::path output;  // .xtc, .dcd or .pdb (multi-MODEL)
  FrameSelection selection;
};

// OUT.json for OUT (`path.xtc` -> `path.xtc.json`).
std::filesystem::path trajectory_sidecar(const std::filesystem::path& output);

// Returns the number of frames written.
std::int64_t export_trajectory(const TrajectoryExportRequest& request);

}  // namespace trails::report
