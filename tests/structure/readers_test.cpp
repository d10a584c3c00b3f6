// PDB and GRO readers and writers: known contents of the test structures, round trips through
// Trails' own writers, multi-model files, and error messages for broken files.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "python_ref.h"
#include "trails/core/error.h"
#include "trails/structure/box.h"
#include "trails/structure/elements.h"
#include "trails/structure/gro.h"
#include "trails/structure/pdb.h"
#include "trails/structure/selection.h"

namespace trails::structure {
namespace {

using testing::data_dir;

std::string pdb_error(const std::string& text) {
  std::istringstream in(text);
  try {
    read_pdb(in, "bad.pdb");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string gro_error(const std::string& text) {
  std::istringstream in(text);
  try {
    read_gro(in, "bad.gro");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Elements, GuessesFromNames) {
  EXPECT_EQ(guess_element("CA", "ALA"), "C");
  EXPECT_EQ(guess_element("HH31", "ACE"), "H");
  EXPECT_EQ(guess_element("1HB", "ALA"), "H");
  EXPECT_EQ(guess_element("OW", "SOL"), "O");
  EXPECT_EQ(guess_element("HW1", "SOL"), "H");
  EXPECT_EQ(guess_element("CL", "CL"), "Cl");
  EXPECT_EQ(guess_element("NA", "NA"), "Na");
  EXPECT_EQ(guess_element("K", "K"), "K");
  EXPECT_EQ(guess_element("NA", "NA+"), "Na");
  EXPECT_EQ(guess_element("SOD", "SOD"), "Na");
  EXPECT_EQ(guess_element("CLA", "CLA"), "Cl");
  EXPECT_EQ(guess_element("NA", "HEM"), "N");
  EXPECT_EQ(guess_element("MG", "MG"), "Mg");
  EXPECT_EQ(guess_element("FE", "HEM", true), "Fe");
  EXPECT_EQ(guess_element("HG11", "VAL", false), "H");
  EXPECT_EQ(guess_element("123", "X"), "");
  EXPECT_EQ(normalize_element("CL"), "Cl");
  EXPECT_EQ(normalize_element("Xx"), "");
  EXPECT_DOUBLE_EQ(element_mass("C"), 12.011);
  EXPECT_DOUBLE_EQ(element_mass("Cl"), 35.45);
  EXPECT_EQ(element_mass(""), 0.0);
}

TEST(Pdb, ReadsTheDipeptide) {
  const StructureFile s = read_pdb(data_dir() / "alanine-dipeptide.pdb");
  ASSERT_EQ(s.topology.n_atoms(), 22);
  ASSERT_EQ(s.n_frames(), 1);
  EXPECT_FALSE(s.boxes[0]);
  EXPECT_FALSE(s.topology.box);
  const Atom& ca = s.topology.atoms[8];
  EXPECT_EQ(ca.index, 8);
  EXPECT_EQ(ca.serial, 9);
  EXPECT_EQ(ca.name, "CA");
  EXPECT_EQ(ca.resname, "ALA");
  EXPECT_EQ(ca.resid, 2);
  EXPECT_EQ(ca.resindex, 1);
  EXPECT_EQ(ca.chain, "A");
  EXPECT_EQ(ca.segid, "A");
  EXPECT_EQ(ca.element, "C");
  EXPECT_EQ(ca.type, "C");
  EXPECT_DOUBLE_EQ(ca.mass, 12.011);
  EXPECT_EQ(s.topology.atoms[0].name, "HH31");
  EXPECT_EQ(s.topology.atoms[21].resindex, 2);
  // ATOM      9  CA  ALA A   2       4.853   4.614   0.000 (Å)
  EXPECT_DOUBLE_EQ(s.frames[0][3 * 8 + 0], 0.4853);
  EXPECT_DOUBLE_EQ(s.frames[0][3 * 8 + 1], 0.4614);
  EXPECT_DOUBLE_EQ(s.frames[0][3 * 8 + 2], 0.0);
  double mass = 0;
  for (const auto& a : s.topology.atoms) mass += a.mass;
  EXPECT_NEAR(mass, 144.17, 0.01);  // C6 H12 N2 O2
}

TEST(Pdb, ReadsTheSolvatedBoxAndIons) {
  const StructureFile s = read_pdb(data_dir() / "alanine-dipeptide-solvated.pdb");
  ASSERT_EQ(s.topology.n_atoms(), 1275);
  ASSERT_TRUE(s.topology.box);
  EXPECT_EQ(*s.topology.box, (Box{2.4, 0, 0, 0, 2.4, 0, 0, 0, 2.4}));
  const Atom& na = s.topology.atoms[1267];
  EXPECT_EQ(na.name, "Na");
  EXPECT_EQ(na.element, "Na");
  EXPECT_DOUBLE_EQ(na.mass, 22.990);
  EXPECT_EQ(select(s.topology, "element Cl").size(), 4u);
  EXPECT_EQ(select(s.topology, "resname HOH and name O").size(), 415u);
  EXPECT_EQ(s.topology.atoms.back().resindex, 3 + 415 + 8 - 1);
}

TEST(Pdb, MultiModelTriclinic) {
  const StructureFile s = read_pdb(data_dir() / "dipeptide-3models-triclinic.pdb");
  ASSERT_EQ(s.n_frames(), 3);
  ASSERT_EQ(s.topology.n_atoms(), 22);
  for (const auto& box : s.boxes) {
    ASSERT_TRUE(box);
    const BoxParameters p = box_parameters(*box);
    EXPECT_NEAR(p.a_nm, 2.0, 1e-9);
    EXPECT_NEAR(p.b_nm, 2.2, 1e-9);
    EXPECT_NEAR(p.c_nm, 2.4, 1e-9);
    EXPECT_NEAR(p.alpha_deg, 80, 1e-9);
    EXPECT_NEAR(p.beta_deg, 95, 1e-9);
    EXPECT_NEAR(p.gamma_deg, 100, 1e-9);
  }
  // The frames differ (the generator shifts model k by 1.5 k Å).
  EXPECT_NEAR(s.frames[2][0] - s.frames[0][0], 0.3, 0.2);
  EXPECT_NE(s.frames[1], s.frames[0]);
}

TEST(Pdb, WriteReadRoundTripIsExactToTheFormat) {
  const StructureFile a = read_pdb(data_dir() / "alanine-dipeptide-solvated.pdb");
  std::stringstream text;
  write_pdb(text, a);
  const StructureFile b = read_pdb(text, "roundtrip.pdb");
  ASSERT_EQ(b.topology.n_atoms(), a.topology.n_atoms());
  for (int i = 0; i < a.topology.n_atoms(); ++i) {
    const Atom &x = a.topology.atoms[i], &y = b.topology.atoms[i];
    ASSERT_EQ(std::tie(x.name, x.resname, x.resid, x.resindex, x.chain, x.segid, x.element),
              std::tie(y.name, y.resname, y.resid, y.resindex, y.chain, y.segid, y.element))
        << i;
  }
  EXPECT_EQ(b.frames, a.frames);  // the same 3-decimal Å text, parsed the same way
  ASSERT_TRUE(b.topology.box);
  for (int k = 0; k < 9; ++k) EXPECT_NEAR((*b.topology.box)[k], (*a.topology.box)[k], 1e-12);
}

TEST(Pdb, WriterColumns) {
  const StructureFile a = read_pdb(data_dir() / "alanine-dipeptide-solvated.pdb");
  std::ostringstream out;
  write_pdb(out, a.topology, a.frames[0], a.topology.box);
  std::istringstream lines(out.str());
  std::string cryst, first, ca, na;
  std::getline(lines, cryst);
  std::getline(lines, first);
  for (int i = 0; i < 8; ++i) std::getline(lines, ca);
  EXPECT_EQ(cryst, "CRYST1   24.000   24.000   24.000  90.00  90.00  90.00 P 1           1");
  EXPECT_EQ(first,
            "ATOM      1  H1  ACE A   1       2.000   1.000   0.000  1.00  0.00      A    H  ");
  EXPECT_EQ(ca, "ATOM      9  CA  ALA A   2       4.853   4.614   0.000  1.00  0.00      A    C  ");
  std::string line;
  while (std::getline(lines, line))
    if (line.starts_with("HETATM 1268")) na = line;  // index 1267, the first ion
  EXPECT_EQ(na, "HETATM 1268 Na    NA C   1      13.350  -5.442  -1.570  1.00  0.00      C   NA  ");
}

TEST(Pdb, MultiModelWriteKeepsFramesAndBoxes) {
  StructureFile a = read_pdb(data_dir() / "dipeptide-3models-triclinic.pdb");
  a.boxes[1] = box_from_parameters({3.0, 3.1, 3.2, 90, 90, 90});  // boxes may differ per model
  std::stringstream text;
  write_pdb(text, a);
  const StructureFile b = read_pdb(text, "models.pdb");
  ASSERT_EQ(b.n_frames(), 3);
  EXPECT_EQ(b.frames, a.frames);
  for (int f = 0; f < 3; ++f) {
    const BoxParameters p = box_parameters(*a.boxes[f]), q = box_parameters(*b.boxes[f]);
    EXPECT_NEAR(q.a_nm, p.a_nm, 1e-4);
    EXPECT_NEAR(q.c_nm, p.c_nm, 1e-4);
    EXPECT_NEAR(q.beta_deg, p.beta_deg, 1e-2);
  }
}

TEST(Gro, ReadsMDAnalysisOutputLikeThePdb) {
  const StructureFile pdb = read_pdb(data_dir() / "alanine-dipeptide-solvated.pdb");
  const StructureFile gro = read_gro(data_dir() / "alanine-dipeptide-solvated.gro");
  ASSERT_EQ(gro.topology.n_atoms(), pdb.topology.n_atoms());
  ASSERT_TRUE(gro.topology.box);
  EXPECT_EQ(*gro.topology.box, *pdb.topology.box);
  for (int i = 0; i < pdb.topology.n_atoms(); ++i) {
    const Atom &x = pdb.topology.atoms[i], &y = gro.topology.atoms[i];
    ASSERT_EQ(std::tie(x.name, x.resname, x.resindex, x.element),
              std::tie(y.name, y.resname, y.resindex, y.element))
        << i;
    for (int k = 0; k < 3; ++k)
      ASSERT_NEAR(gro.frames[0][3 * i + k], pdb.frames[0][3 * i + k], 0.00051) << i;
  }
  EXPECT_EQ(select(gro.topology, "backbone"), select(pdb.topology, "backbone"));
}

TEST(Gro, TriclinicMultiFrameRoundTrip) {
  StructureFile a = read_pdb(data_dir() / "dipeptide-3models-triclinic.pdb");
  std::stringstream text;
  write_gro(text, a);
  const StructureFile b = read_gro(text, "frames.gro");
  ASSERT_EQ(b.n_frames(), 3);
  for (int f = 0; f < 3; ++f) {
    for (std::size_t k = 0; k < a.frames[f].size(); ++k)
      ASSERT_NEAR(b.frames[f][k], a.frames[f][k], 0.0005 + 1e-12);
    for (int k = 0; k < 9; ++k) EXPECT_NEAR((*b.boxes[f])[k], (*a.boxes[f])[k], 5e-6 + 1e-12);
  }
  EXPECT_NE((*b.boxes[0])[6], 0.0);  // the 9-value box line carried the tilt
}

TEST(Gro, HigherPrecisionAndNoBox) {
  const std::string text =
      "precise\n    2\n    1SOL     OW    1   0.12345   1.00000  -2.50000\n"
      "    1SOL    HW1    2   0.20000   1.10000  -2.40000  0.1000  0.2000  0.3000\n"
      "   0.00000   0.00000   0.00000\n";
  std::istringstream in(text);
  const StructureFile s = read_gro(in, "precise.gro");
  EXPECT_DOUBLE_EQ(s.frames[0][0], 0.12345);
  EXPECT_DOUBLE_EQ(s.frames[0][5], -2.4);
  EXPECT_FALSE(s.boxes[0]);
  EXPECT_EQ(s.topology.atoms[1].element, "H");
  EXPECT_EQ(s.topology.atoms[1].type, "H");
}

TEST(StructureFile, ByExtension) {
  const auto dir = testing::fresh_dir("ext");
  const StructureFile a = read_pdb(data_dir() / "alanine-dipeptide.pdb");
  write_structure(dir / "x.gro", a.topology, a.frames[0], std::nullopt);
  write_structure(dir / "x.PDB", a);
  EXPECT_EQ(read_structure(dir / "x.gro").topology.n_atoms(), 22);
  EXPECT_EQ(read_structure(dir / "x.PDB").frames, a.frames);
  EXPECT_EQ(structure_format("a.ent"), StructureFormat::Pdb);
  try {
    read_structure(dir / "x.xyz");
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown structure format '.xyz'"), std::string::npos);
  }
  EXPECT_THROW(read_structure(dir / "missing.pdb"), core::InputError);
}

TEST(Errors, BadPdbFilesNameTheLine) {
  const std::string atom =
      "ATOM      1  N   ALA A   1       1.000   2.000   3.000  1.00  0.00           N\n";
  EXPECT_EQ(pdb_error("REMARK nothing\n"),
            "bad.pdb: no ATOM or HETATM records: not a PDB structure");
  EXPECT_EQ(pdb_error("REMARK\nATOM      1  N   ALA A   1       1.000   x.000   3.000\n"),
            "bad.pdb:2: bad y coordinate 'x.000' (columns 39-46); expected a number in Å");
  EXPECT_EQ(pdb_error("ATOM      1  N   ALA A   1       1.000   2.000\n"),
            "bad.pdb:1: ATOM/HETATM record has 46 characters; coordinates need columns 31-54");
  EXPECT_EQ(pdb_error("ATOM      1  N   ALA A   Q       1.000   2.000   3.000\n"),
            "bad.pdb:1: bad residue number 'Q' (columns 23-26); expected an integer");
  EXPECT_EQ(pdb_error("MODEL 1\n" + atom + "ENDMDL\nMODEL 2\n" + atom + atom + "ENDMDL\n"),
            "bad.pdb:7: model 2 has 2 atoms but the first model has 1");
  EXPECT_EQ(pdb_error("MODEL 1\n" + atom),
            "bad.pdb:3: file ends inside the model opened at line 1 (missing ENDMDL)");
  EXPECT_EQ(pdb_error(atom + "ENDMDL\n"), "bad.pdb:2: ENDMDL record without a MODEL record");
  EXPECT_EQ(pdb_error("CRYST1   10.000   10.000   10.000  90.00 190.00  90.00 P 1\n" + atom),
            "bad.pdb:1: CRYST1 record: box a=1 b=1 c=1 nm, alpha=90 beta=190 gamma=90 deg: box "
            "angles must lie strictly between 0 and 180");
  EXPECT_EQ(pdb_error("CRYST1   10.000   1z.000   10.000  90.00  90.00  90.00 P 1\n"),
            "bad.pdb:1: bad CRYST1 b '1z.000' (columns 16-24)");
}

TEST(Errors, BadGroFilesNameTheLine) {
  const std::string atom = "    1SOL     OW    1   0.123   1.000  -2.500\n";
  EXPECT_EQ(gro_error(""),
            "bad.gro: empty file: a GRO file starts with a title line and the "
            "atom count");
  EXPECT_EQ(gro_error("t\nthree\n"),
            "bad.gro:2: bad atom count 'three'; expected a non-negative integer");
  EXPECT_EQ(gro_error("t\n2\n" + atom), "bad.gro:4: file ends early: expected atom 2 of 2");
  EXPECT_EQ(gro_error("t\n1\n" + atom),
            "bad.gro:4: file ends early: expected the box line "
            "after the atoms");
  EXPECT_EQ(gro_error("t\n1\n" + atom + "1 2 3 4\n"),
            "bad.gro:4: box line has 4 values; expected 3 (rectangular) or 9 (triclinic)");
  EXPECT_EQ(gro_error("t\n1\n    1SOL     OW    1   0.123   1.0x0  -2.500\n1 1 1\n"),
            "bad.gro:3: bad y coordinate '1.0x0' (columns 29-36); expected a number in nm");
  EXPECT_EQ(gro_error("t\n1\n    1SOL     OW    1   0.123   1.000\n1 1 1\n"),
            "bad.gro:3: atom line has 36 characters; columns 1-44 must hold residue, atom and x "
            "y z fields");
  EXPECT_EQ(gro_error("t\n1\n" + atom + "1 1 1\nt\n2\n"),
            "bad.gro:6: frame 2 has 2 atoms but the first frame has 1");
}

}  // namespace
}  // namespace trails::structure
