// PDB reading and writing (ATOM/HETATM, CRYST1, MODEL/ENDMDL). Units: files hold Å, Trails nm.
// Reader: columns as in the wwPDB 3.3 format; element from columns 77-78, else guessed from
// the atom name; segid from columns 67-76, and the chain identifier where no atom has a segid
// (as MDAnalysis does); a CRYST1 of 1 1 1 90 90 90 means "no box" (the usual convention).
// Writer: fixed columns that mdtraj, MDAnalysis, VMD and OpenMM read back to the last digit.
#pragma once

#include <istream>
#include <optional>
#include <ostream>
#include <span>
#include <string>

#include "trails/structure/structure_file.h"

namespace trails::structure {

StructureFile read_pdb(const std::filesystem::path& path);
// `source` names the stream in error messages ("file.pdb").
StructureFile read_pdb(std::istream& in, const std::string& source);

// One model: CRYST1 (when `box`), MODEL `model` (when model >= 1), one ATOM/HETATM line per
// atom, ENDMDL (when model >= 1). No END record: write_pdb_end closes a file.
// Throws InputError when a coordinate does not fit the %8.3f Å columns or sizes disagree.
void write_pdb(std::ostream& out, const Topology& topology, std::span<const double> positions_nm,
               const std::optional<Box>& box, int model = -1);
void write_pdb_end(std::ostream& out);
// All frames of `structure` (MODEL records only when there is more than one), then END.
void write_pdb(std::ostream& out, const StructureFile& structure);

}  // namespace trails::structure
