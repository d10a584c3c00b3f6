// Amber's ASCII files: the parameter/topology file (prmtop: atom names, residues, masses and
// IFBOX, what Trails needs for CVs and selections), coordinate/restart files (inpcrd/rst7:
// 6F12.7 positions, optional velocities and box) and trajectories (mdcrd: 10F8.3 frames, a
// box line per frame when periodic). Fixed-width fields are read by width, as Amber writes
// them (values may touch). Units out: nm, nm/ps, box vectors as rows (structure/box.h). Every
// problem throws core::InputError naming the file (and line where it applies).
#pragma once

#include <filesystem>

#include "trails/engines/amber/amber_netcdf.h"
#include "trails/structure/topology.h"

namespace trails::engines::amber {

struct Prmtop {
  structure::Topology topology;
  bool periodic = true;  // IFBOX (the 28th POINTERS value) != 0
};

Prmtop read_prmtop(const std::filesystem::path& file);
// An ASCII inpcrd/rst7 of n_atoms (or a NetCDF restart, by its magic bytes).
AmberState read_restart(const std::filesystem::path& file, int n_atoms);
AmberFrames read_mdcrd(const std::filesystem::path& file, int n_atoms, bool periodic);

}  // namespace trails::engines::amber
