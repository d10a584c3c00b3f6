// Files written by Trails, read back by mdtraj 1.9 and MDAnalysis 2.4 (through /usr/bin/python3):
// the same atoms, the same coordinates to the precision of each format, the same boxes.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "python_ref.h"
#include "trails/structure/box.h"
#include "trails/structure/gro.h"
#include "trails/structure/pdb.h"

namespace trails::structure {
namespace {

// Coordinates with all decimals in use, so a shifted or truncated column would show.
StructureFile perturbed(StructureFile s, int frames) {
  const std::vector<double> base = s.frames[0];
  s.frames.clear();
  s.boxes.clear();
  for (int f = 0; f < frames; ++f) {
    std::vector<double> x = base;
    for (std::size_t k = 0; k < x.size(); ++k)
      x[k] += 0.0123456 * std::sin(1.7 * static_cast<double>(k) + f) - 0.01 * f;
    s.frames.push_back(std::move(x));
    // Truncated octahedron for frame 0, then general triclinic cells that change per frame.
    s.boxes.push_back(f == 0
                          ? box_from_parameters({2.5, 2.5, 2.5, 70.528779, 109.471221, 70.528779})
                          : box_from_parameters({2.4 + 0.1 * f, 2.6, 2.7, 80, 95, 100.0 + f}));
  }
  s.topology.box = s.boxes[0];
  return s;
}

struct Expect {
  double tolerance_angstrom;
  std::size_t frames;  // how many frames the tool reads
  bool names = true;   // false: the tool renames atoms (mdtraj on GRO files)
  bool boxes = true;   // false: the tool keeps one box per file (mdtraj on multi-model PDB)
};

void expect_reads_back(const StructureFile& written, const nlohmann::json& tool,
                       const std::string& who, const Expect& expect) {
  SCOPED_TRACE(who);
  const auto& atoms = written.topology.atoms;
  ASSERT_EQ(tool["positions"].size(), expect.frames);
  ASSERT_EQ(tool["names"].size(), atoms.size());
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    if (expect.names) {
      ASSERT_EQ(tool["names"][i].get<std::string>(), atoms[i].name) << i;
    }
    ASSERT_EQ(tool["resnames"][i].get<std::string>(), atoms[i].resname) << i;
    ASSERT_EQ(tool["resids"][i].get<int>(), atoms[i].resid) << i;
  }
  double worst = 0;
  for (std::size_t f = 0; f < expect.frames; ++f) {
    const auto& xyz = tool["positions"][f];
    for (std::size_t i = 0; i < atoms.size(); ++i)
      for (std::size_t k = 0; k < 3; ++k)
        worst = std::max(worst,
                         std::fabs(xyz[i][k].get<double>() - 10.0 * written.frames[f][3 * i + k]));
    ASSERT_FALSE(tool["box"][f].is_null()) << "frame " << f;
    if (!expect.boxes) continue;
    const BoxParameters p = box_parameters(*written.boxes[f]);
    const double expected[6] = {10 * p.a_nm, 10 * p.b_nm, 10 * p.c_nm,
                                p.alpha_deg, p.beta_deg,  p.gamma_deg};
    for (int k = 0; k < 6; ++k)
      EXPECT_NEAR(tool["box"][f][k].get<double>(), expected[k], k < 3 ? 1e-3 : 1e-2)
          << "frame " << f << " box parameter " << k;
  }
  EXPECT_LE(worst, expect.tolerance_angstrom);
  EXPECT_GT(worst, 0.0);  // rounding to the format's decimals must be visible
}

TEST(ReadBack, MdtrajAndMDAnalysisReadTrailsFiles) {
  const auto dir = testing::fresh_dir("readback");
  const StructureFile solvated =
      perturbed(read_pdb(testing::data_dir() / "alanine-dipeptide-solvated.pdb"), 1);
  const StructureFile models =
      perturbed(read_pdb(testing::data_dir() / "alanine-dipeptide.pdb"), 3);
  write_structure(dir / "solvated.pdb", solvated);
  write_structure(dir / "solvated.gro", solvated);
  write_structure(dir / "models.pdb", models);
  write_structure(dir / "models.gro", models);

  const nlohmann::json ref = testing::run_pyref(
      "read " + (dir / "solvated.pdb").string() + " " + (dir / "solvated.gro").string() + " " +
      (dir / "models.pdb").string() + " " + (dir / "models.gro").string());
  ASSERT_TRUE(ref.is_array());
  ASSERT_EQ(ref.size(), 4u);
  // PDB: 3 decimals in Å (half a unit: 5e-4 Å) plus float32 storage in the readers.
  // GRO: 3 decimals in nm (5e-3 Å).
  const double pdb_tol = 5e-4 + 2e-6 * 30, gro_tol = 5e-3 + 2e-6 * 30;
  // MDAnalysis 2.4 reads only the first frame of a GRO file.
  expect_reads_back(solvated, ref[0]["mdanalysis"], "MDAnalysis solvated.pdb", {pdb_tol, 1});
  expect_reads_back(solvated, ref[0]["mdtraj"], "mdtraj solvated.pdb", {pdb_tol, 1});
  expect_reads_back(solvated, ref[1]["mdanalysis"], "MDAnalysis solvated.gro", {gro_tol, 1});
  expect_reads_back(solvated, ref[1]["mdtraj"], "mdtraj solvated.gro", {gro_tol, 1, false});
  expect_reads_back(models, ref[2]["mdanalysis"], "MDAnalysis models.pdb", {pdb_tol, 3});
  expect_reads_back(models, ref[2]["mdtraj"], "mdtraj models.pdb", {pdb_tol, 3, true, false});
  expect_reads_back(models, ref[3]["mdanalysis"], "MDAnalysis models.gro", {gro_tol, 1});
  expect_reads_back(models, ref[3]["mdtraj"], "mdtraj models.gro", {gro_tol, 3, false});
  // Elements from columns 77-78 (PDB only; GRO has none).
  const auto& elements = ref[0]["mdtraj"]["elements"];
  for (std::size_t i = 0; i < solvated.topology.atoms.size(); ++i)
    ASSERT_EQ(elements[i].get<std::string>(), solvated.topology.atoms[i].element) << i;
  EXPECT_EQ(ref[0]["mdanalysis"]["elements"][1267].get<std::string>(), "Na");
}

}  // namespace
}  // namespace trails::structure
