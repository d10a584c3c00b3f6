// CvSpec JSON form and its errors, CvSet layout (dimension, column names, order), thread-count
// independence, the Trails-MD presets, and exact answers for rigid motions.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "cv_test_support.h"
#include "trails/core/error.h"
#include "trails/cvs/backbone.h"
#include "trails/cvs/cv_set.h"

namespace trails::cvs {
namespace {

using nlohmann::json;
using namespace trails::cvs::testing;

Structure alad() { return read_pdb(structure_path("alanine-dipeptide.pdb")); }

CvSpec make(std::string name, std::string kind, std::vector<std::vector<int>> groups = {},
            std::vector<int> fit_atoms = {}) {
  CvSpec s;
  s.name = std::move(name);
  s.kind = std::move(kind);
  s.groups = std::move(groups);
  s.fit_atoms = std::move(fit_atoms);
  return s;
}

std::string config_error(const json& entry) {
  try {
    cv_spec_from_json(entry, "cvs[3]");
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(CvSpecJson, ParsesEachKind) {
  const CvSpec d = cv_spec_from_json(json::parse(R"({"name": "phi", "kind": "dihedral",
      "atoms": [4, 6, 8, 14], "encoding": "sincos"})"));
  EXPECT_EQ(d.kind, "dihedral");
  EXPECT_EQ(d.groups, (std::vector<std::vector<int>>{{4, 6, 8, 14}}));
  EXPECT_EQ(d.encoding, AngleEncoding::Sincos);

  const CvSpec r = cv_spec_from_json(json::parse(R"({"name": "rmsd_bb", "kind": "rmsd",
      "selection": "backbone", "fit_selection": "name CA", "unit": "angstrom"})"));
  EXPECT_EQ(r.selection, "backbone");
  EXPECT_EQ(r.fit_selection, "name CA");
  EXPECT_EQ(r.reference, "conf_file");
  EXPECT_EQ(r.unit, LengthUnit::Angstrom);

  const CvSpec p = cv_spec_from_json(json::parse(R"({"name": "psi2", "kind": "psi", "resid": 2})"));
  EXPECT_EQ(p.resid, 2);

  const CvSpec c = cv_spec_from_json(json::parse(R"({"name": "c", "kind": "contacts",
      "atoms": [0, 1], "atoms_b": [5, 6], "switching": "hard", "cutoff": 0.6})"));
  EXPECT_EQ(c.groups.size(), 2u);
  EXPECT_EQ(c.switching, "hard");
  EXPECT_DOUBLE_EQ(c.cutoff_nm, 0.6);

  const CvSpec q = cv_spec_from_json(json::parse(R"({"name": "q", "kind": "q",
      "reference": "native.pdb", "beta": 40, "min_residue_separation": 2})"));
  EXPECT_EQ(q.reference, "native.pdb");
  EXPECT_DOUBLE_EQ(q.beta_per_nm, 40);
  EXPECT_EQ(q.min_residue_separation, 2);
  EXPECT_TRUE(q.groups.empty() || q.groups[0].empty());

  const CvSpec rg = cv_spec_from_json(json::parse(R"({"name": "rg", "kind": "rg",
      "atoms": [0, 1, 2], "mass_weighted": true})"));
  EXPECT_TRUE(rg.mass_weighted);
}

TEST(CvSpecJson, ErrorsNameTheEntryAndTheKey) {
  EXPECT_EQ(config_error(json::parse(R"({"name": "phi", "kind": "dihedral", "atoms": [4, 6, 8]})")),
            "cvs[3] (phi): key 'atoms': a dihedral needs exactly 4 atom indices, got 3");
  EXPECT_EQ(config_error(json::parse(R"({"kind": "distance", "atoms": [1, 2]})")),
            "cvs[3]: key 'name': missing: every CV needs a name (its column name)");
  EXPECT_NE(config_error(json::parse(R"({"name": "x", "kind": "torsion"})"))
                .find("key 'kind': unknown kind 'torsion'; expected one of distance, angle"),
            std::string::npos);
  EXPECT_NE(config_error(json::parse(R"({"name": "x", "kind": "distance", "atoms": [1, 2],
                                         "atom": 3})"))
                .find("key 'atom': not a key of kind distance; allowed: atoms, unit"),
            std::string::npos);
  EXPECT_NE(config_error(json::parse(R"({"name": "x", "kind": "distance", "atoms": [1, -2]})"))
                .find("key 'atoms': expected 0-based atom indices (integers ≥ 0), found -2"),
            std::string::npos);
  EXPECT_NE(config_error(json::parse(R"({"name": "x", "kind": "distance", "atoms": [1, 1]})"))
                .find("atom index 1 is repeated"),
            std::string::npos);
  EXPECT_NE(config_error(json::parse(R"({"name": "x", "kind": "rmsd", "atoms": [1, 2, 3],
                                         "selection": "protein"})"))
                .find("key 'selection': give either 'atoms' or 'selection', not both"),
            std::string::npos);
  EXPECT_NE(
      config_error(json::parse(R"({"name": "x", "kind": "rg"})")).find("key 'atoms': missing"),
      std::string::npos);
  EXPECT_NE(config_error(json::parse(R"({"name": "x", "kind": "angle", "atoms": [1, 2, 3],
                                         "encoding": "degrees"})"))
                .find("key 'encoding': expected raw or sincos, got 'degrees'"),
            std::string::npos);
  EXPECT_NE(config_error(json::parse(R"({"name": "x", "kind": "contacts", "atoms": [1, 2],
                                         "n": 12, "m": 6})"))
                .find("key 'm': a rational switching function needs m > n"),
            std::string::npos);
  EXPECT_NE(config_error(json::parse(R"({"name": "x", "kind": "q", "beta": -1})"))
                .find("key 'beta': must be > 0"),
            std::string::npos);
  EXPECT_NE(
      config_error(json::parse(R"({"name": "x", "kind": "phi"})")).find("key 'resid': missing"),
      std::string::npos);
  EXPECT_NE(
      config_error(json::parse(R"({"name": "a b", "kind": "phi", "resid": 2})")).find("key 'name'"),
      std::string::npos);
  EXPECT_NE(config_error(json::parse(R"([1, 2])")).find("cvs[3]: expected a mapping"),
            std::string::npos);
}

TEST(CvSpecJson, ResolveSelectionsFillsGroups) {
  CvSpec s = cv_spec_from_json(json::parse(R"({"name": "c", "kind": "contacts",
      "selection": "resid 1", "selection_b": "resid 3"})"));
  resolve_selections(s, [](const std::string& sel) {
    return sel == "resid 1" ? std::vector<int>{0, 1, 2} : std::vector<int>{16, 17};
  });
  EXPECT_TRUE(s.selection.empty());
  EXPECT_EQ(s.groups, (std::vector<std::vector<int>>{{0, 1, 2}, {16, 17}}));
  const Structure st = alad();
  EXPECT_NO_THROW(CvSet({s}, st.topology));
  CvSpec unresolved = cv_spec_from_json(json::parse(R"({"name": "r", "kind": "rg",
      "selection": "protein"})"));
  EXPECT_THROW(CvSet({unresolved}, st.topology), core::InternalError);
}

TEST(CvSet, ValidatesAgainstTheTopology) {
  const Structure st = alad();
  auto make = [&](const char* text) {
    return CvSet({cv_spec_from_json(json::parse(text))}, st.topology, st.positions_nm);
  };
  try {
    make(R"({"name": "d", "kind": "distance", "atoms": [1, 22]})");
    FAIL();
  } catch (const core::ConfigError& e) {
    EXPECT_STREQ(e.what(), "cv 'd' (kind distance): atom index 22 is outside the topology (0..21)");
  }
  try {
    make(R"({"name": "p", "kind": "phi", "resid": 1})");
    FAIL();
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(e.describe(),
              "phi of residue ACE 1 (chain A): the residue has no atom named N\n"
              "  while locating the backbone atoms of cv 'p' (kind phi)");
  }
  EXPECT_THROW(make(R"({"name": "p", "kind": "psi", "resid": 7})"), core::ConfigError);
  EXPECT_THROW(CvSet({cv_spec_from_json(json::parse(R"({"name": "r", "kind": "rmsd",
      "atoms": [0, 1, 2, 3]})"))},
                     st.topology),  // no reference
               core::ConfigError);
  // Alanine dipeptide has no residues > 3 apart, so no native contact.
  EXPECT_THROW(make(R"({"name": "q", "kind": "q"})"), core::ConfigError);
  const json two = json::parse(R"({"name": "d", "kind": "distance", "atoms": [1, 2]})");
  EXPECT_THROW(CvSet({cv_spec_from_json(two), cv_spec_from_json(two)}, st.topology),
               core::ConfigError);
}

TEST(CvSet, ComputeChecksSizesAndBoxes) {
  const Structure st = alad();
  const CvSet set({cv_spec_from_json(json::parse(R"({"name": "d", "kind": "distance",
      "atoms": [0, 21]})"))},
                  st.topology);
  std::vector<double> out(2, -1.0);
  std::vector<double> two = st.positions_nm;
  two.insert(two.end(), st.positions_nm.begin(), st.positions_nm.end());
  EXPECT_THROW(set.compute(st.positions_nm, 2, {}, out), core::InputError);
  std::vector<std::optional<structure::Box>> bad = {std::nullopt,
                                                    structure::Box{1, 0.5, 0, 0, 1, 0, 0, 0, 1}};
  EXPECT_THROW(set.compute(two, 2, bad, out), core::InputError);
  EXPECT_EQ(out[0], -1.0);  // nothing written before the input was validated
  std::vector<std::optional<structure::Box>> mixed = {std::nullopt,
                                                      structure::Box{1, 0, 0, 0, 1, 0, 0, 0, 1}};
  set.compute(two, 2, mixed, out);
  EXPECT_GT(out[0], 0.5);   // no box: the plain distance
  EXPECT_LE(out[1], 0.87);  // unit cube: at most half the diagonal
}

TEST(CvSet, ColumnsFollowTheSpecs) {
  const Structure st = alad();
  std::vector<CvSpec> specs;
  for (const char* text :
       {R"({"name": "d", "kind": "distance", "atoms": [0, 21]})",
        R"({"name": "a", "kind": "angle", "atoms": [4, 6, 8], "encoding": "sincos"})",
        R"({"name": "pair", "kind": "distances", "atoms": [8, 4, 14]})",
        R"({"name": "fit", "kind": "fitted_coords", "atoms": [6, 8], "fit_atoms": [4, 6, 8, 10]})",
        R"({"name": "rg", "kind": "rg", "atoms": [0, 1, 2]})"})
    specs.push_back(cv_spec_from_json(json::parse(text)));
  const CvSet set(specs, st.topology, st.positions_nm);
  EXPECT_EQ(set.dimension(), 1 + 2 + 3 + 6 + 1);
  EXPECT_EQ(set.column_names(),
            (std::vector<std::string>{"d", "a:sin", "a:cos", "pair:8-4", "pair:8-14", "pair:4-14",
                                      "fit:6.x", "fit:6.y", "fit:6.z", "fit:8.x", "fit:8.y",
                                      "fit:8.z", "rg"}));
  std::vector<double> out(set.dimension());
  set.compute(st.positions_nm, 1, {}, out);
  // On the reference itself the fitted coordinates are the reference coordinates.
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(out[6 + k], st.positions_nm[3 * 6 + k], 1e-12);
    EXPECT_NEAR(out[9 + k], st.positions_nm[3 * 8 + k], 1e-12);
  }
  const double theta = std::atan2(out[1], out[2]);
  EXPECT_NEAR(out[1] * out[1] + out[2] * out[2], 1.0, 1e-12);
  EXPECT_GT(theta, 1.5);
  EXPECT_LT(theta, 2.6);
}

TEST(CvSet, RigidMotionGivesExactAnswers) {
  // Rotate and translate the reference: RMSD 0 and fitted coordinates = reference, also for a
  // coplanar fit set (the PDB backbone lies in z = 0: a rank-2 covariance).
  const Structure st = alad();
  const Eigen::Matrix3d rot =
      Eigen::AngleAxisd(2.1, Eigen::Vector3d(0.3, -0.5, 0.8).normalized()).toRotationMatrix();
  std::vector<double> moved(st.positions_nm.size());
  for (std::size_t i = 0; i < moved.size(); i += 3) {
    const Eigen::Vector3d x =
        rot * Eigen::Vector3d(st.positions_nm[i], st.positions_nm[i + 1], st.positions_nm[i + 2]) +
        Eigen::Vector3d(1.5, -2.0, 0.7);
    for (int k = 0; k < 3; ++k) moved[i + k] = x[k];
  }
  std::vector<int> all(22);
  for (int i = 0; i < 22; ++i) all[i] = i;
  const CvSpec rmsd_planar = make("r", "rmsd", {all}, {4, 6, 8, 14, 16});
  const CvSpec fit_planar = make("f", "fitted_coords", {all}, {4, 6, 8, 14, 16});
  const CvSpec rg = make("g", "rg", {all});
  const CvSet set({rmsd_planar, fit_planar, rg}, st.topology, st.positions_nm);
  std::vector<double> out(set.dimension()), at_ref(set.dimension());
  set.compute(moved, 1, {}, out);
  set.compute(st.positions_nm, 1, {}, at_ref);
  EXPECT_NEAR(out[0], 0.0, 1e-9);
  for (int c = 0; c < 66; ++c) EXPECT_NEAR(out[1 + c], st.positions_nm[c], 1e-9) << c;
  EXPECT_NEAR(out[67], at_ref[67], 1e-12);
}

TEST(CvSet, BitwiseIndependentOfThreadCount) {
  const Structure st = alad();
  const std::vector<double> frames =
      read_numbers(structure_path("alanine-dipeptide-box-frames.txt"));
  const int n = int(frames.size() / 66);
  std::vector<std::optional<structure::Box>> boxes(n,
                                                   read_box(structure_path("triclinic-box.txt")));
  std::vector<int> all(22);
  for (int i = 0; i < 22; ++i) all[i] = i;
  CvSpec bb = make("bb", "phi_psi");
  bb.encoding = AngleEncoding::Sincos;
  const std::vector<CvSpec> specs = {make("pairs", "distances", {all}), make("r", "rmsd", {all}),
                                     bb, make("c", "contacts", {{0, 1, 2, 3, 4}, {16, 17, 18}})};
  const CvSet set(specs, st.topology, st.positions_nm);
  std::vector<double> one(std::size_t(n) * set.dimension()), many(one.size());
  set.compute(frames, n, boxes, one, 1);
  set.compute(frames, n, boxes, many, 7);
  EXPECT_EQ(std::memcmp(one.data(), many.data(), one.size() * sizeof(double)), 0);
}

TEST(TrailsMdPresets, FeatureTypes) {
  const Structure st = alad();
  const std::vector<int> heavy = {1, 4, 5, 6, 8, 10, 14, 15, 16, 18};
  const CvSpec d = trails_md_feature("distances", heavy);
  const CvSpec unknown = trails_md_feature("something-else", heavy);
  const CvSpec fc = trails_md_feature("fitted_coords", heavy);
  const CvSpec pp = trails_md_feature("phi_psi", heavy, AngleEncoding::Sincos);
  EXPECT_EQ(unknown.kind, "distances");  // as in Trails-MD, unknown types map to distances
  EXPECT_EQ(fc.reference, "topology");
  const CvSet set({d, fc, pp}, st.topology, st.positions_nm);
  EXPECT_EQ(set.dimension(), 45 + 30 + 4);
  const auto cols = set.column_names();
  EXPECT_EQ(cols[0], "distances:1-4");
  EXPECT_EQ(cols[1], "distances:1-5");
  EXPECT_EQ(cols[9], "distances:4-5");
  EXPECT_EQ(cols[44], "distances:16-18");
  std::vector<double> out(set.dimension());
  set.compute(st.positions_nm, 1, {}, out);
  const auto at = [&](int i, int k) { return st.positions_nm[3 * i + k]; };
  EXPECT_NEAR(out[0],
              10 * std::hypot(at(1, 0) - at(4, 0), at(1, 1) - at(4, 1), at(1, 2) - at(4, 2)),
              1e-12);                         // Å
  EXPECT_NEAR(out[45], 10 * at(1, 0), 1e-9);  // fitted coordinates, Å
  EXPECT_EQ(cols[75], "phi_psi:sin_phi2");
  EXPECT_EQ(cols[77], "phi_psi:cos_phi2");
}

TEST(TrailsMdPresets, FallbackIsRgThenRmsd) {
  const auto specs = trails_md_fallback_cvs({0, 1, 2, 3});
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].kind, "rg");
  EXPECT_TRUE(specs[0].mass_weighted);
  EXPECT_EQ(specs[1].kind, "rmsd");
  EXPECT_EQ(specs[1].unit, LengthUnit::Angstrom);
  EXPECT_EQ(specs[1].reference, "conf_file");
}

// A capped peptide in the CHARMM style of Trails-MD's AIB9: CY in the first residue, NT in the
// last, no separate cap residues.
TEST(Backbone, CapsInsideTerminalResiduesAndChains) {
  structure::Topology t;
  auto add = [&](const char* name, const char* resname, int resid, int resindex,
                 const char* chain) {
    structure::Atom a;
    a.index = t.n_atoms();
    a.name = name;
    a.resname = resname;
    a.resid = resid;
    a.resindex = resindex;
    a.chain = chain;
    t.atoms.push_back(a);
  };
  for (int r = 0; r < 3; ++r) {
    if (r == 0) add("CY", "AIB", 1, 0, "A");
    add("N", "AIB", r + 1, r, "A");
    add("CA", "AIB", r + 1, r, "A");
    add("C", "AIB", r + 1, r, "A");
    if (r == 2) add("NT", "AIB", 3, 2, "A");
  }
  // A second chain reusing resid 1: never bonded to chain A.
  add("N", "GLY", 1, 3, "B");
  add("CA", "GLY", 1, 3, "B");
  add("C", "GLY", 1, 3, "B");
  const auto d = backbone_dihedrals(t, "AIB");
  ASSERT_EQ(d.size(), 6u);
  EXPECT_EQ(d[0].label, "phi1");
  EXPECT_EQ(d[0].atoms, (std::array<int, 4>{0, 1, 2, 3}));  // φ1 uses CY
  EXPECT_EQ(d[1].atoms, (std::array<int, 4>{1, 2, 3, 4}));
  EXPECT_EQ(d[5].label, "psi3");
  EXPECT_EQ(d[5].atoms, (std::array<int, 4>{7, 8, 9, 10}));  // ψ3 uses NT
  EXPECT_THROW(phi_atoms(t, 1), core::ConfigError);          // resid 1 is in chains A and B
  EXPECT_EQ(phi_atoms(t, 1, "A"), (std::array<int, 4>{0, 1, 2, 3}));
  EXPECT_THROW(phi_atoms(t, 1, "B"), core::ConfigError);  // chain B has no previous residue
  EXPECT_EQ(backbone_dihedrals(t).size(), 6u);
}

}  // namespace
}  // namespace trails::cvs
