// The molecular topology Trails works with: atoms in file order with the fields selections,
// CVs and trajectory writers need. Readers (PDB, GRO, the prepared OpenMM topology) fill it;
// nothing here knows about files. Positions travel separately as n_atoms × 3 doubles in nm.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace trails::structure {

struct Atom {
  int index = 0;        // 0-based position in the topology (selection keyword `index`)
  int serial = 0;       // serial number as written in the file
  std::string name;     // atom name, e.g. "CA"
  std::string resname;  // residue name, e.g. "ALA"
  int resid = 0;        // residue number as written in the file (`resid`, `resnum`)
  int resindex = 0;     // 0-based residue ordinal in file order
  std::string chain;    // chain identifier (may be empty)
  std::string segid;    // segment identifier (may be empty)
  std::string element;  // element symbol, e.g. "C" (from the file or guessed from the name)
  std::string type;     // atom type (force-field type when known, else the element)
  double mass = 0.0;    // amu (from the element when the file gives none)
};

// Box vectors a, b, c as rows, nm (triclinic allowed; GROMACS/OpenMM reduced form).
using Box = std::array<double, 9>;

struct Topology {
  std::vector<Atom> atoms;
  std::optional<Box> box;  // box of the structure file, when it has one

  int n_atoms() const { return static_cast<int>(atoms.size()); }
};

}  // namespace trails::structure
