// Periodic box conversions between the crystallographic form of PDB CRYST1 records (lengths a,
// b, c and angles alpha, beta, gamma) and box vectors in the GROMACS/OpenMM reduced form
// (a along x, b in the xy plane, rows of a 3×3 matrix, nm). Pure functions, thread-safe.
#pragma once

#include "trails/structure/topology.h"

namespace trails::structure {

struct BoxParameters {
  double a_nm = 0, b_nm = 0, c_nm = 0;                   // vector lengths
  double alpha_deg = 90, beta_deg = 90, gamma_deg = 90;  // angles b^c, a^c, a^b
};

// Vectors from lengths and angles. A right angle gives an exact zero component (not 6e-17).
// Throws InputError when the parameters do not describe a box (non-positive length, angles
// outside (0, 180), or angles that cannot close a cell).
Box box_from_parameters(const BoxParameters& p);

// Lengths and angles of any three box vectors (rows of `box`).
BoxParameters box_parameters(const Box& box);

// True when all three vectors are zero (GRO files write "0 0 0" for "no box").
bool box_is_zero(const Box& box);

}  // namespace trails::structure
