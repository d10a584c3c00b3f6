// The topology of a molecular run: the one RUN_DIR/prepared/<digest>/topology.pdb that the
// OpenMM engine writes when it prepares the system (docs/engines.md). Trajectory export and a
// stored learned model's features (docs/cvs.md, "Using a stored model") read it.
#pragma once

#include <filesystem>

namespace trails::store {

// Throws core::InputError naming the run directory when it holds no prepared topology, or more
// than one (stale prepared systems make the run's topology ambiguous).
std::filesystem::path prepared_topology(const std::filesystem::path& run_dir);

}  // namespace trails::store
