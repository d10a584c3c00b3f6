// Length units shared by the file formats (docs/file-formats.md): positions are nm inside Trails,
// Å in PDB, DCD and Amber files.
#pragma once

namespace trails::core {

// A division, not a multiplication by 0.1: 3.8 Å / 10 is exactly 0.38 nm.
inline constexpr double kAngstromPerNm = 10.0;

}  // namespace trails::core
