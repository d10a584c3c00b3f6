// Backbone dihedrals located by atom names in a Topology: φ(i) = C(i−1) N(i) CA(i) C(i) and
// ψ(i) = N(i) CA(i) C(i) N(i+1), neighbours being the adjacent residues (resindex ± 1) of the same
// chain. Caps that live inside the first/last residue (CHARMM-style CY / NT, as in Trails-MD's
// AIB9 system) stand in when there is no neighbour. Errors are core::ConfigError naming the
// residue and the missing atom.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "trails/structure/topology.h"

namespace trails::cvs {

struct BackboneDihedral {
  std::string label;         // "phi2", "psi2": angle name and resid
  std::array<int, 4> atoms;  // 0-based atom indices
};

// φ / ψ of the residue numbered `resid` (as in the file). `chain` disambiguates a resid that
// occurs in several chains (empty: the resid must be unique).
std::array<int, 4> phi_atoms(const structure::Topology& topology, int resid,
                             const std::string& chain = {});
std::array<int, 4> psi_atoms(const structure::Topology& topology, int resid,
                             const std::string& chain = {});

// Every backbone residue (one with N, CA and C; restricted to `resname` when non-empty) in file
// order contributes φ then ψ, each when it exists: φ1, ψ1, φ2, ψ2, … Throws when no angle exists.
std::vector<BackboneDihedral> backbone_dihedrals(const structure::Topology& topology,
                                                 const std::string& resname = {});

}  // namespace trails::cvs
