// Residue classes shared by the selection language and the PDB writer. The protein residue
// names are MDAnalysis 2.4's list (CHARMM, PDB, GROMACS OPLS-AA/GROMOS/AMBER names, caps ACE
// and NME), so `protein` selects the same atoms in Trails and in MDAnalysis.
#pragma once

#include <string_view>

namespace trails::structure {

bool is_protein_residue(std::string_view resname);
// N, CA, C, O: the atoms `backbone` selects within protein residues.
bool is_backbone_atom_name(std::string_view name);

}  // namespace trails::structure
