// GROMACS TRR trajectories (full precision: the float or double `real` GROMACS wrote), read
// without libgromacs so that a damaged file is an error and never ends the process. Each frame
// keeps what the file holds: box, positions, velocities, forces (any may be absent), step,
// time. Units: nm, nm/ps, kJ/mol/nm, ps. Layout (XDR, big-endian): magic 1993, the version
// string "GMX_trn_file", thirteen sizes and counts, time and lambda, then the blocks
// (docs/file-formats.md, "TRR"). Errors: core::InputError naming the file, frame and byte offset.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "trails/structure/topology.h"

namespace trails::trajio {

struct TrrFrame {
  std::int64_t step = 0;
  double time_ps = 0.0;
  std::optional<structure::Box> box;  // rows a, b, c (nm)
  std::vector<double> positions;      // n_atoms * 3, empty when the frame has none
  std::vector<double> velocities;     // n_atoms * 3, empty when the frame has none
  std::vector<double> forces;         // n_atoms * 3, empty when the frame has none
  bool double_precision = false;      // the file stores 8-byte reals
};

struct TrrTrajectory {
  int n_atoms = 0;
  std::vector<TrrFrame> frames;
};

// Reads every frame. With n_atoms given, a frame with another atom count is an InputError; a
// truncated last frame is an InputError too (an mdrun that died mid-write is a failed walker).
TrrTrajectory read_trr(const std::filesystem::path& path,
                       std::optional<int> n_atoms = std::nullopt);

// Writes `frames` in single precision (the `real` of mixed-precision GROMACS, which reads the
// file as grompp -t input): box, positions and velocities where a frame has them, no forces.
// Throws InputError for vectors that are not n_atoms * 3 long or a file that cannot be written.
void write_trr(const std::filesystem::path& path, int n_atoms, const std::vector<TrrFrame>& frames);

}  // namespace trails::trajio
