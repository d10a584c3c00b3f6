#include "trails/structure/residues.h"

#include <unordered_set>

namespace trails::structure {

bool is_protein_residue(std::string_view resname) {
  static const std::unordered_set<std::string_view> names{
      // CHARMM
      "ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HSD", "HSE", "HSP", "ILE", "LEU",
      "LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL", "ALAD",
      // PDB
      "HIS", "MSE",
      // GROMACS OPLS-AA and GROMOS
      "ARGN", "ASPH", "CYS2", "CYSH", "QLN", "PGLU", "GLUH", "HIS1", "HISD", "HISE", "HISH", "LYSH",
      "ASN1", "CYS1", "HISA", "HISB", "HIS2",
      // AMBER (with caps)
      "HID", "HIE", "HIP", "ORN", "DAB", "LYN", "HYP", "CYM", "CYX", "ASH", "GLH", "ACE", "NME",
      // AMBER terminal residues
      "NALA", "NGLY", "NSER", "NTHR", "NLEU", "NILE", "NVAL", "NASN", "NGLN", "NARG", "NHID",
      "NHIE", "NHIP", "NTRP", "NPHE", "NTYR", "NGLU", "NASP", "NLYS", "NPRO", "NCYS", "NCYX",
      "NMET", "CALA", "CGLY", "CSER", "CTHR", "CLEU", "CILE", "CVAL", "CASF", "CASN", "CGLN",
      "CARG", "CHID", "CHIE", "CHIP", "CTRP", "CPHE", "CTYR", "CGLU", "CASP", "CLYS", "CPRO",
      "CCYS", "CCYX", "CMET", "CME", "ASF"};
  return names.contains(resname);
}

bool is_backbone_atom_name(std::string_view name) {
  return name == "N" || name == "CA" || name == "C" || name == "O";
}

}  // namespace trails::structure
