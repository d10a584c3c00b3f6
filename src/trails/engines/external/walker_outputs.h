// Reading what an external program wrote for one walker: its frames (.npy, .xtc or .dcd) and
// arrays of the final state (.npy), checked against the shape Trails expects. Any problem (a
// missing file, a short trajectory, a wrong atom count or shape) throws core::InputError naming
// the file and what was expected, which the engine turns into a failed walker.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace trails::engines::external {

struct WalkerFrames {
  std::int64_t n_frames = 0;
  std::vector<double> positions;  // n_frames × n_atoms × spatial_dim
  std::vector<double> boxes;      // n_frames × 9, or empty when the file has no boxes
};

// Frames after steps stride, 2·stride, …: exactly `expected` of them, or expected + 1 when the
// program also wrote the start (t = 0, as GROMACS, Amber and most MD codes do), which is dropped.
// .npy: float64 or float32 of shape (frames, n_atoms, spatial_dim) or (frames, n_atoms ×
// spatial_dim); .xtc/.dcd: 3-D atoms in nm (the trajio readers), with their boxes.
WalkerFrames read_walker_frames(const std::filesystem::path& file, int n_atoms, int spatial_dim,
                                std::int64_t expected);

// How many leading frames to drop when a program wrote `found` frames for `expected`: 0, or 1
// for a leading start frame (t = 0). Throws InputError naming `file` for any other count.
std::int64_t leading_frames(const std::filesystem::path& file, std::int64_t found,
                            std::int64_t expected);

// A float .npy holding exactly `n_values` numbers (any shape), as float64.
std::vector<double> read_walker_array(const std::filesystem::path& file, std::size_t n_values);

}  // namespace trails::engines::external
