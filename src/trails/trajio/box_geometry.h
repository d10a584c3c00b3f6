// Conversions between box vectors (rows a, b, c in nm, trails::structure::Box) and the
// crystallographic description (lengths a, b, c in nm; angles alpha = ∠(b,c), beta = ∠(a,c),
// gamma = ∠(a,b) in degrees) that DCD unit cells and PDB CRYST1 records use.
// Pure functions, no I/O. Orientation is not kept by lengths/angles: box_from_lengths_angles
// returns the GROMACS/OpenMM reduced form (a along x, b in the xy plane, c with positive z).
#pragma once

#include "trails/structure/topology.h"

namespace trails::trajio {

struct LengthsAngles {
  double a_nm = 0, b_nm = 0, c_nm = 0;
  double alpha_deg = 90, beta_deg = 90, gamma_deg = 90;
};

// Lengths and angles of the three box vectors. Throws InputError for a zero-length vector.
LengthsAngles box_to_lengths_angles(const structure::Box& box);

// Reduced-form box vectors for lengths and angles. An angle of exactly 90 gives an exactly zero
// off-diagonal term (no 6e-17 residue from cos). Throws InputError for non-positive lengths or
// angles that do not describe a cell (the volume would be imaginary or zero).
structure::Box box_from_lengths_angles(const LengthsAngles& cell);

}  // namespace trails::trajio
