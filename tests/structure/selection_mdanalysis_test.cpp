// Cross-check: the same selection strings evaluated by Trails and by MDAnalysis 2.4 (through
// /usr/bin/python3) give exactly the same atom indices on the same PDB files.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "python_ref.h"
#include "trails/structure/selection.h"
#include "trails/structure/structure_file.h"

namespace trails::structure {
namespace {

void cross_check(const std::string& file, const std::vector<std::string>& selections) {
  const auto path = testing::data_dir() / file;
  const Topology topology = read_structure(path).topology;
  const auto dir = testing::fresh_dir("mda-" + file);
  const auto list = dir / "selections.txt";
  {
    std::ofstream out(list);
    for (const auto& s : selections) out << s << '\n';
  }
  const nlohmann::json reference =
      testing::run_pyref("select " + path.string() + " " + list.string());
  ASSERT_TRUE(reference.is_array());
  ASSERT_EQ(reference.size(), selections.size());
  int non_trivial = 0;
  for (std::size_t i = 0; i < selections.size(); ++i) {
    const auto expected = reference[i].get<std::vector<int>>();
    EXPECT_EQ(select(topology, selections[i]), expected) << "selection: " << selections[i];
    non_trivial += !expected.empty() && expected.size() < topology.atoms.size();
  }
  // The list must exercise real subsets, not only all-or-nothing answers.
  EXPECT_GE(non_trivial, static_cast<int>(selections.size()) / 2);
}

TEST(SelectionVsMDAnalysis, AlanineDipeptide) {
  cross_check("alanine-dipeptide.pdb", {"all",
                                        "protein",
                                        "backbone",
                                        "name CA",
                                        "name CA CB C",
                                        "name H*",
                                        "name HH3?",
                                        "name HB[12]",
                                        "name *3",
                                        "resname ALA",
                                        "resname ACE NME",
                                        "resname A*",
                                        "resid 2",
                                        "resid 1-2",
                                        "resid 1:2",
                                        "resid 1 to 2",
                                        "resid 1 3",
                                        "resnum 3",
                                        "index 0-4",
                                        "index 3 7 11",
                                        "index 5:9",
                                        "bynum 1-3",
                                        "bynum 22",
                                        "type H",
                                        "type C O",
                                        "element N",
                                        "segid A",
                                        "chainid A",
                                        "chainID A",
                                        "protein and not type H",
                                        "protein and not (type H)",
                                        "not name H*",
                                        "name CA or name N and resid 2",
                                        "name N and resid 3 or name CA",
                                        "not name H* and resid 2",
                                        "resid 3 and (name N or name CA)",
                                        "(resname ACE or resname NME) and type C",
                                        "not (backbone or type H)",
                                        "backbone and not resname ALA"});
}

TEST(SelectionVsMDAnalysis, SolvatedDipeptideWithIons) {
  cross_check("alanine-dipeptide-solvated.pdb", {"protein",
                                                 "backbone",
                                                 "not protein",
                                                 "resname HOH",
                                                 "resname HOH and name O",
                                                 "name Na Cl",
                                                 "resname NA CL",
                                                 "element Na",
                                                 "element Cl",
                                                 "type NA",
                                                 "chainid B",
                                                 "chainid C",
                                                 "segid C",
                                                 "resid 1",
                                                 "resid 1 and chainid B",
                                                 "resid 5-10 and resname HOH and type O",
                                                 "index 20-30",
                                                 "bynum 1270-1277",
                                                 "protein and not type H",
                                                 "not resname HOH and not protein",
                                                 "name H1 H2 and not protein",
                                                 "resid 100:102 or name CA"});
}

// GRO files carry no elements: types come from Trails' and MDAnalysis's name-based guesses.
TEST(SelectionVsMDAnalysis, SolvatedDipeptideGro) {
  cross_check("alanine-dipeptide-solvated.gro",
              {"protein", "backbone", "resname HOH and name O", "type H", "type NA CL",
               "type O and not resname HOH", "name Na Cl", "resid 2-4", "resid 1 and name H*",
               "protein and not (type H)", "not protein and not resname HOH", "bynum 10:20",
               "index 1270 1271 1272"});
}

}  // namespace
}  // namespace trails::structure
