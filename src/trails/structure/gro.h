// GROMACS GRO reading and writing. Units: nm (as the file). Reader: fixed columns (residue
// number 1-5, residue name 6-10, atom name 11-15, atom number 16-20, then coordinates whose
// width follows the decimal points, so higher-precision GRO files read too; velocities are
// ignored); box line with 3 (rectangular) or 9 (triclinic) values; several frames one after
// another. Elements are guessed from atom names. Writer: %8.3f coordinates, %10.5f box.
#pragma once

#include <istream>
#include <optional>
#include <ostream>
#include <span>
#include <string>

#include "trails/structure/structure_file.h"

namespace trails::structure {

StructureFile read_gro(const std::filesystem::path& path);
StructureFile read_gro(std::istream& in, const std::string& source);

// One frame block: title line, atom count, atoms, box line ("0 0 0" when `box` is empty).
// Throws InputError when a coordinate does not fit the %8.3f columns or sizes disagree.
void write_gro(std::ostream& out, const Topology& topology, std::span<const double> positions_nm,
               const std::optional<Box>& box, const std::string& title = "written by Trails");
void write_gro(std::ostream& out, const StructureFile& structure);

}  // namespace trails::structure
