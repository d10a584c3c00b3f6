// Every frame of a trajectory file in any format Trails reads (docs/trajectories.md): XTC, DCD,
// TRR, Amber NetCDF (.nc), and PDB or GRO (every MODEL or frame block), as the stacked positions
// and boxes a features::Projection takes. For `trails project` on a trajectory (docs/cvs.md,
// "Using a stored model").
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace trails::report {

struct TrajectoryFrames {
  std::int64_t n_frames = 0;
  std::vector<double> positions;  // n_frames × n_atoms × 3, nm
  std::vector<double> boxes;      // n_frames × 9 (vectors as rows), or empty: no box
};

// Whether `file`'s extension names one of the formats above (case-insensitive).
bool is_trajectory_file(const std::filesystem::path& file);

// Throws core::InputError naming the file when it cannot be read, holds no frame, its atom
// count is not `n_atoms`, or only some of its frames have a box. `spatial_dim` must be 3 (a
// trajectory holds atoms; the built-in engine's runs project feature rows).
TrajectoryFrames read_trajectory_frames(const std::filesystem::path& file, int n_atoms,
                                        int spatial_dim);

}  // namespace trails::report
