// Chemical elements for structure files: symbol normalisation, masses, and guessing an element
// from an atom name when a file gives none (GRO files, PDB files without columns 77-78).
// Pure functions, no I/O, thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace trails::structure {

// "CL", "cl", "Cl" -> "Cl"; "" when `symbol` is not a known element.
std::string normalize_element(std::string_view symbol);

// Standard atomic weight in amu (IUPAC conventional values); 0.0 for "" or an unknown symbol.
double element_mass(std::string_view symbol);

// Element guessed from an atom name and its residue name, as mdtraj/MDAnalysis do for files
// without element columns: leading digits are skipped ("1HB" -> H); a two-letter element is
// chosen only for one-atom residues named like it (resname "CL" or "CL-", name "CL" -> Cl;
// CHARMM's SOD POT CLA CAL CES LIT RUB BAR -> Na K Cl Ca Cs Li Rb Ba) or when
// `two_letter_hint` says the file placed it that way (PDB names starting in column 13 with
// at most two letters); otherwise the first letter decides ("CA" -> C, "OW" -> O).
// Returns "" when nothing fits.
std::string guess_element(std::string_view atom_name, std::string_view resname,
                          bool two_letter_hint = false);

}  // namespace trails::structure
