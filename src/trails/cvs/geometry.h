// Geometry kernels on one frame: displacement, distance, angle and dihedral, each with the
// minimum-image convention when a box is given (box == nullptr: plain Cartesian). Positions are
// n_atoms × 3 doubles in nm (atom i at xyz[3i..3i+2]); angles are radians. Pure functions,
// thread-safe, no allocation. Indices are not range-checked here (CvSet validates them).
#pragma once

#include <span>

#include "trails/cvs/periodic_box.h"

namespace trails::cvs {

inline Vec3 atom_position(std::span<const double> xyz, int i) {
  return Vec3(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
}

// r_j − r_i, minimum image when box != nullptr.
Vec3 displacement(std::span<const double> xyz, int i, int j, const PeriodicBox* box);

// |r_j − r_i| in nm.
double distance(std::span<const double> xyz, int i, int j, const PeriodicBox* box);

// Angle i–j–k at the vertex j, in [0, π]. Bond vectors use the minimum image, as mdtraj's
// compute_angles(periodic=True) does. Computed as atan2(|u×v|, u·v), exact near 0 and π.
double angle(std::span<const double> xyz, int i, int j, int k, const PeriodicBox* box);

// Dihedral i–j–k–l in (−π, π], IUPAC sign convention (the same as mdtraj's compute_dihedrals):
// with b1 = r_j−r_i, b2 = r_k−r_j, b3 = r_l−r_k, φ = atan2(|b2| b1·(b2×b3), (b1×b2)·(b2×b3)).
double dihedral(std::span<const double> xyz, int i, int j, int k, int l, const PeriodicBox* box);

}  // namespace trails::cvs
