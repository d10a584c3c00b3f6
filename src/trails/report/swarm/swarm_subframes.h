// The files of a swarm run's subframes (docs/swarm.md, "Subframes"): per chain k,
// RUN_DIR/path_k/subframes.csv (built-in engine: cycle, path step and time, coordinates) or
// path_k/reactive_path_subframes.xtc (molecular: the whole system, frame times = path times in
// ps). The frames come from swarm::replay_subframes; each file is replaced atomically.
#pragma once

#include <filesystem>
#include <vector>

#include "trails/swarm/subframes.h"

namespace trails::report {

std::vector<std::filesystem::path> write_swarm_subframes(
    const std::filesystem::path& run_dir, const std::vector<swarm::SubframePath>& paths);

}  // namespace trails::report
