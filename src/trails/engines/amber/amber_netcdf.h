// Amber's NetCDF files through the NetCDF C library (Debian libnetcdf-dev): the trajectory
// (Conventions AMBER: float coordinates in Å per frame, optional cell_lengths/cell_angles) and
// the restart (AMBERRESTART: double coordinates and velocities, full precision), following the
// AMBER NetCDF conventions 1.0. Positions and boxes are converted to nm (box vectors as rows,
// structure/box.h), velocities to nm/ps. Every problem throws core::InputError naming the file.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "trails/structure/topology.h"

namespace trails::engines::amber {

struct AmberState {
  std::vector<double> positions_nm;  // n_atoms × 3
  std::vector<double> velocities;    // n_atoms × 3 nm/ps, or empty
  std::optional<structure::Box> box;
  double time_ps = 0.0;
};

struct AmberFrames {
  std::vector<double> positions_nm;  // n_frames × n_atoms × 3
  std::vector<double> boxes;         // n_frames × 9, or empty without cell variables
  std::size_t n_frames = 0;
};

// Whether `file` is a NetCDF file (classic "CDF" or NetCDF-4 HDF5 magic), not ASCII.
bool is_netcdf(const std::filesystem::path& file);

AmberFrames read_netcdf_trajectory(const std::filesystem::path& file, int n_atoms);
AmberState read_netcdf_restart(const std::filesystem::path& file, int n_atoms);
// Writes an AMBERRESTART file (64-bit offset format, as pmemd writes with ntxo=2).
void write_netcdf_restart(const std::filesystem::path& file, const AmberState& state);

}  // namespace trails::engines::amber
