// `trails export RUN_DIR --trajectory OUT.{xtc,dcd,pdb} [--iteration N] [--walker W]`: the stored
// frames of a molecular (OpenMM) run as a trajectory with the run's prepared topology
// (RUN_DIR/prepared/<digest>/topology.pdb; same atom order as the shards). Frames come in ledger
// order: iterations ascending, ok walkers in walker order, each walker's frames in time order;
// time = (k + 1) × stride × dt for the k-th exported frame. Built-in runs are refused (their
// particles are CV-space points, not atoms: use --cvs). Reads the run store only; bad requests
// (unknown iteration or walker, unknown extension) write nothing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace trails::report {

struct TrajectoryExportRequest {
  std::filesystem::path run_dir;
  std::filesystem::path output;           // .xtc, .dcd or .pdb (multi-MODEL)
  std::optional<std::int64_t> iteration;  // none: every committed iteration
  std::optional<std::int64_t> walker;     // none: every ok walker
};

// Returns the number of frames written.
std::int64_t export_trajectory(const TrajectoryExportRequest& request);

}  // namespace trails::report
