// Every CV against mdtraj (and MDAnalysis where it has the function) on the committed frames
// (tests/data/structures, made by tests/cvs/make_test_frames.py): 1e-5 nm, 1e-4 rad.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iomanip>

#include "cv_test_support.h"
#include "trails/cvs/cv_set.h"

namespace trails::cvs {
namespace {

using nlohmann::json;
using namespace trails::cvs::testing;

constexpr double kTolNm = 1e-5;
constexpr double kTolRad = 1e-4;

const std::string kAladPdb = structure_path("alanine-dipeptide.pdb");
const std::string kAladFrames = structure_path("alanine-dipeptide-frames.txt");
const std::string kAladBoxFrames = structure_path("alanine-dipeptide-box-frames.txt");
const std::string kBox = structure_path("triclinic-box.txt");

struct Frames {
  Structure structure;
  std::vector<double> xyz;
  int n_frames = 0;
  std::vector<std::optional<structure::Box>> boxes;
};

Frames load(const std::string& pdb, const std::string& frames, bool with_box = false) {
  Frames f;
  f.structure = read_pdb(pdb);
  f.xyz = read_numbers(frames);
  f.n_frames = int(f.xyz.size() / (3 * f.structure.topology.n_atoms()));
  EXPECT_EQ(f.xyz.size(), std::size_t(f.n_frames) * 3 * f.structure.topology.n_atoms());
  if (with_box) f.boxes.assign(f.n_frames, read_box(kBox));
  return f;
}

// n_frames × dim values of `specs` on `f`.
std::vector<double> compute(const Frames& f, std::vector<CvSpec> specs, int threads = 1) {
  const CvSet set(std::move(specs), f.structure.topology, f.structure.positions_nm);
  std::vector<double> out(std::size_t(f.n_frames) * set.dimension());
  set.compute(f.xyz, f.n_frames, f.boxes, out, threads);
  return out;
}

CvSpec spec(std::string name, std::string kind, std::vector<int> atoms = {}) {
  CvSpec s;
  s.name = std::move(name);
  s.kind = std::move(kind);
  if (!atoms.empty()) s.groups = {std::move(atoms)};
  return s;
}

json item(const std::string& id, const std::string& fn, const std::string& frames,
          const std::string& pdb = kAladPdb) {
  return {{"id", id}, {"fn", fn}, {"pdb", pdb}, {"frames", frames}};
}

std::vector<int> all_atoms(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

std::vector<int> heavy_atoms(const structure::Topology& t) {
  std::vector<int> v;
  for (const auto& a : t.atoms)
    if (a.element != "H") v.push_back(a.index);
  return v;
}

double wrapped(double a) { return std::remainder(a, 2 * M_PI); }

// Compares a (frames × cols) reference with columns [col0, col0 + cols) of ours (frames × dim).
void expect_block(const json& ref, const std::vector<double>& ours, int dim, int col0, double tol,
                  bool angular, const std::string& what) {
  ASSERT_TRUE(ref.is_array()) << what;
  for (std::size_t f = 0; f < ref.size(); ++f) {
    for (std::size_t c = 0; c < ref[f].size(); ++c) {
      const double r = ref[f][c].get<double>();
      const double o = ours[f * dim + col0 + c];
      if (angular) {
        ASSERT_NEAR(wrapped(o - r), 0.0, tol) << what << " frame " << f << " col " << c;
      } else {
        ASSERT_NEAR(o, r, tol) << what << " frame " << f << " col " << c;
      }
    }
  }
}

TEST(MdtrajCrossCheck, PairDistancesWithoutBox) {
  const Frames f = load(kAladPdb, kAladFrames);
  const int n = f.structure.topology.n_atoms();
  const auto ours = compute(f, {spec("d", "distances", all_atoms(n))});
  json pairs = json::array();
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) pairs.push_back({i, j});
  json it = item("d", "distances", kAladFrames);
  it["pairs"] = pairs;
  it["periodic"] = false;
  const json ref = reference_values({it});
  expect_block(ref["d"], ours, int(pairs.size()), 0, kTolNm, false, "distances");
}

TEST(MdtrajCrossCheck, TriclinicMinimumImageDistances) {
  const Frames f = load(kAladPdb, kAladBoxFrames, true);
  const int n = f.structure.topology.n_atoms();
  const auto ours = compute(f, {spec("d", "distances", all_atoms(n))});
  json pairs = json::array();
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) pairs.push_back({i, j});
  json md = item("md", "distances", kAladBoxFrames);
  md["pairs"] = pairs;
  md["periodic"] = true;
  md["box"] = box_json(read_box(kBox));
  json mda = md;
  mda["id"] = "mda";
  mda["fn"] = "mda_distances";
  json plain = md;
  plain["id"] = "plain";
  plain["periodic"] = false;
  const json ref = reference_values({md, mda, plain});
  const int dim = int(pairs.size());
  expect_block(ref["md"], ours, dim, 0, kTolNm, false, "mdtraj periodic distances");
  expect_block(ref["mda"], ours, dim, 0, kTolNm, false, "MDAnalysis periodic distances");
  // Not vacuous: the atoms really are scattered over images, and the skew matters.
  int differ = 0;
  for (std::size_t fr = 0; fr < ref["plain"].size(); ++fr)
    for (int c = 0; c < dim; ++c)
      if (std::abs(ref["plain"][fr][c].get<double>() - ours[fr * dim + c]) > 0.1) ++differ;
  EXPECT_GT(differ, dim * int(ref["plain"].size()) / 2);
}

const std::vector<std::vector<int>> kTriples = {{4, 6, 8},   {6, 8, 14}, {8, 14, 16}, {0, 1, 4},
                                                {10, 8, 14}, {5, 4, 6},  {2, 12, 19}};
const std::vector<std::vector<int>> kQuads = {{4, 6, 8, 14},   {6, 8, 14, 16}, {1, 4, 6, 8},
                                              {8, 14, 16, 18}, {5, 4, 6, 7},   {10, 8, 14, 15},
                                              {0, 9, 13, 21}};

void check_angles_and_dihedrals(const Frames& f, const std::string& frames_file) {
  std::vector<CvSpec> specs;
  for (std::size_t k = 0; k < kTriples.size(); ++k)
    specs.push_back(spec("a" + std::to_string(k), "angle", kTriples[k]));
  for (std::size_t k = 0; k < kQuads.size(); ++k)
    specs.push_back(spec("t" + std::to_string(k), "dihedral", kQuads[k]));
  const auto ours = compute(f, specs);
  const int dim = int(specs.size());
  const bool periodic = !f.boxes.empty();
  json a = item("a", "angles", frames_file);
  a["triples"] = kTriples;
  a["periodic"] = periodic;
  json t = item("t", "dihedrals", frames_file);
  t["quads"] = kQuads;
  t["periodic"] = periodic;
  json mda = item("mda", "mda_dihedrals", frames_file);
  mda["quads"] = kQuads;
  if (periodic) {
    a["box"] = t["box"] = mda["box"] = box_json(*f.boxes[0]);
  }
  const json ref = reference_values({a, t, mda});
  expect_block(ref["a"], ours, dim, 0, kTolRad, false, "angles");
  expect_block(ref["t"], ours, dim, int(kTriples.size()), kTolRad, true, "dihedrals");
  expect_block(ref["mda"], ours, dim, int(kTriples.size()), kTolRad, true, "MDA dihedrals");
}

TEST(MdtrajCrossCheck, AnglesAndDihedrals) {
  check_angles_and_dihedrals(load(kAladPdb, kAladFrames), kAladFrames);
}

TEST(MdtrajCrossCheck, AnglesAndDihedralsAcrossTriclinicImages) {
  check_angles_and_dihedrals(load(kAladPdb, kAladBoxFrames, true), kAladBoxFrames);
}

TEST(MdtrajCrossCheck, DihedralWrapNearPlusMinusPi) {
  // Frames whose dihedral 0-1-2-3 sits just either side of ±π (other atoms as in the PDB).
  Structure s = read_pdb(kAladPdb);
  const std::vector<double> phis = {M_PI - 1e-3,  M_PI - 1e-6, M_PI, -M_PI + 1e-6,
                                    -M_PI + 1e-3, M_PI / 2,    -2.5};
  Frames f;
  f.structure = s;
  for (double phi : phis) {
    std::vector<double> x = s.positions_nm;
    const double p[12] = {
        0, 0.15, 0, 0, 0, 0, 0.15, 0, 0, 0.15, 0.15 * std::cos(phi), 0.15 * std::sin(phi)};
    for (int k = 0; k < 12; ++k) x[k] = p[k] + 1.0;
    f.xyz.insert(f.xyz.end(), x.begin(), x.end());
  }
  f.n_frames = int(phis.size());
  const std::string path = ::testing::TempDir() + "/trails-dihedral-wrap.txt";
  {
    std::ofstream out(path);
    out << std::setprecision(17);
    for (std::size_t k = 0; k < f.xyz.size(); k += 3)
      out << f.xyz[k] << " " << f.xyz[k + 1] << " " << f.xyz[k + 2] << "\n";
  }
  const auto ours = compute(f, {spec("t", "dihedral", {0, 1, 2, 3})});
  json t = item("t", "dihedrals", path);
  t["quads"] = {{0, 1, 2, 3}};
  t["periodic"] = false;
  const json ref = reference_values({t});
  expect_block(ref["t"], ours, 1, 0, kTolRad, true, "dihedral near ±π");
  for (std::size_t k = 0; k < phis.size(); ++k) {
    EXPECT_NEAR(wrapped(ours[k] - phis[k]), 0.0, 1e-9);
    EXPECT_GT(ours[k], -M_PI);
    EXPECT_LE(ours[k], M_PI);
    if (std::abs(phis[k]) < M_PI - 1e-4) {  // away from the seam the sign must agree exactly
      EXPECT_NEAR(ours[k], ref["t"][k][0].get<double>(), kTolRad);
    }
  }
}

TEST(MdtrajCrossCheck, PhiPsiOfAlanineDipeptideByResidue) {
  const Frames f = load(kAladPdb, kAladFrames);
  CvSpec phi = spec("phi", "phi");
  phi.resid = 2;
  CvSpec psi = spec("psi", "psi");
  psi.resid = 2;
  CvSpec both = spec("bb", "phi_psi");
  CvSpec both_sc = spec("bbsc", "phi_psi");
  both_sc.encoding = AngleEncoding::Sincos;
  const CvSet set({phi, psi, both, both_sc}, f.structure.topology);
  EXPECT_EQ(set.column_names(),
            (std::vector<std::string>{"phi", "psi", "bb:phi2", "bb:psi2", "bbsc:sin_phi2",
                                      "bbsc:sin_psi2", "bbsc:cos_phi2", "bbsc:cos_psi2"}));
  std::vector<double> ours(std::size_t(f.n_frames) * set.dimension());
  set.compute(f.xyz, f.n_frames, {}, ours);
  const json ref =
      reference_values({item("phi", "phi", kAladFrames), item("psi", "psi", kAladFrames)});
  ASSERT_EQ(ref["phi"]["atoms"], json({{4, 6, 8, 14}}));
  ASSERT_EQ(ref["psi"]["atoms"], json({{6, 8, 14, 16}}));
  const int dim = set.dimension();
  expect_block(ref["phi"]["angles"], ours, dim, 0, kTolRad, true, "phi");
  expect_block(ref["psi"]["angles"], ours, dim, 1, kTolRad, true, "psi");
  expect_block(ref["phi"]["angles"], ours, dim, 2, kTolRad, true, "phi_psi phi");
  expect_block(ref["psi"]["angles"], ours, dim, 3, kTolRad, true, "phi_psi psi");
  for (int fr = 0; fr < f.n_frames; ++fr) {
    const double p = ref["phi"]["angles"][fr][0].get<double>();
    const double s = ref["psi"]["angles"][fr][0].get<double>();
    EXPECT_NEAR(ours[fr * dim + 4], std::sin(p), kTolRad);
    EXPECT_NEAR(ours[fr * dim + 5], std::sin(s), kTolRad);
    EXPECT_NEAR(ours[fr * dim + 6], std::cos(p), kTolRad);
    EXPECT_NEAR(ours[fr * dim + 7], std::cos(s), kTolRad);
  }
}

// Fit atoms that are not coplanar in the reference (the PDB's backbone lies in z = 0, a
// degenerate fit on which mdtraj's and MDAnalysis' QCP iterations do not converge).
const std::vector<int> kFitAtoms = {4, 5, 6, 8, 10, 14, 15, 16};

TEST(MdtrajCrossCheck, RmsdAfterKabschFit) {
  const Frames f = load(kAladPdb, kAladFrames);
  const auto all = all_atoms(f.structure.topology.n_atoms());
  const auto heavy = heavy_atoms(f.structure.topology);
  CvSpec split = spec("split", "rmsd", all);
  split.fit_atoms = kFitAtoms;
  const auto ours = compute(f, {spec("all", "rmsd", all), spec("heavy", "rmsd", heavy), split});
  json a = item("all", "rmsd", kAladFrames);
  a["atoms"] = all;
  json h = item("heavy", "rmsd", kAladFrames);
  h["atoms"] = heavy;
  json s = item("split", "superpose", kAladFrames);
  s["fit_atoms"] = kFitAtoms;
  s["atoms"] = all;
  json sm = s;
  sm["id"] = "split_mda";
  sm["fn"] = "mda_superpose";
  json m = item("mda", "mda_rmsd", kAladFrames);
  m["atoms"] = heavy;
  const json ref = reference_values({a, h, s, sm, m});
  for (int fr = 0; fr < f.n_frames; ++fr) {
    EXPECT_NEAR(ours[fr * 3 + 0], ref["all"][fr].get<double>(), kTolNm);
    EXPECT_NEAR(ours[fr * 3 + 1], ref["heavy"][fr].get<double>(), kTolNm);
    EXPECT_NEAR(ours[fr * 3 + 1], ref["mda"][fr].get<double>(), kTolNm);
    EXPECT_NEAR(ours[fr * 3 + 2], ref["split"]["rmsd"][fr].get<double>(), kTolNm);
    EXPECT_NEAR(ours[fr * 3 + 2], ref["split_mda"]["rmsd"][fr].get<double>(), kTolNm);
    EXPECT_GT(ours[fr * 3 + 2], ours[fr * 3 + 0]);  // a fit on fewer atoms is worse overall
    EXPECT_GT(ours[fr * 3 + 0], 0.02);              // the frames really differ
  }
}

TEST(MdtrajCrossCheck, FittedCoordinates) {
  const Frames f = load(kAladPdb, kAladFrames);
  const auto heavy = heavy_atoms(f.structure.topology);
  CvSpec on_subset = spec("sub", "fitted_coords", heavy);
  on_subset.fit_atoms = kFitAtoms;
  const auto ours = compute(f, {spec("heavy", "fitted_coords", heavy), on_subset});
  const int width = 3 * int(heavy.size());
  json a = item("heavy", "mda_superpose", kAladFrames);
  a["fit_atoms"] = heavy;
  a["atoms"] = heavy;
  json b = item("sub", "mda_superpose", kAladFrames);
  b["fit_atoms"] = kFitAtoms;
  b["atoms"] = heavy;
  json am = a, bm = b;
  am["id"] = "heavy_md";
  bm["id"] = "sub_md";
  am["fn"] = bm["fn"] = "superpose";
  const json ref = reference_values({a, b, am, bm});
  expect_block(ref["heavy"]["xyz"], ours, 2 * width, 0, kTolNm, false, "fitted heavy (MDA)");
  expect_block(ref["sub"]["xyz"], ours, 2 * width, width, kTolNm, false, "fitted subset (MDA)");
  // mdtraj superposes in single precision (its QCP rotation is good to ~3e-5 nm here).
  expect_block(ref["heavy_md"]["xyz"], ours, 2 * width, 0, 1e-4, false, "fitted heavy (mdtraj)");
  expect_block(ref["sub_md"]["xyz"], ours, 2 * width, width, 1e-4, false, "fitted subset (mdtraj)");
}

TEST(MdtrajCrossCheck, RadiusOfGyration) {
  const Frames f = load(kAladPdb, kAladFrames);
  const auto all = all_atoms(f.structure.topology.n_atoms());
  const auto heavy = heavy_atoms(f.structure.topology);
  CvSpec weighted = spec("rgm", "rg", all);
  weighted.mass_weighted = true;
  const auto ours = compute(f, {spec("rg", "rg", all), spec("rgh", "rg", heavy), weighted});
  json a = item("all", "rg", kAladFrames);
  a["atoms"] = all;
  json h = item("heavy", "rg", kAladFrames);
  h["atoms"] = heavy;
  json m = item("mda", "mda_rg", kAladFrames);
  m["atoms"] = all;
  const json ref = reference_values({a, h, m});
  for (int k = 0; k < f.structure.topology.n_atoms(); ++k)
    ASSERT_NEAR(f.structure.topology.atoms[k].mass, ref["mda"]["masses"][k].get<double>(), 1e-3);
  for (int fr = 0; fr < f.n_frames; ++fr) {
    EXPECT_NEAR(ours[fr * 3 + 0], ref["all"][fr].get<double>(), kTolNm);
    EXPECT_NEAR(ours[fr * 3 + 1], ref["heavy"][fr].get<double>(), kTolNm);
    EXPECT_NEAR(ours[fr * 3 + 2], ref["mda"]["rg"][fr].get<double>(), kTolNm);
    EXPECT_GT(std::abs(ours[fr * 3 + 2] - ours[fr * 3 + 0]), 1e-3);  // weighting matters
  }
}

TEST(MdtrajCrossCheck, TrailsMdFallbackIsRgAndRmsdInAngstrom) {
  const Frames f = load(kAladPdb, kAladFrames);
  const auto all = all_atoms(f.structure.topology.n_atoms());
  const auto ours = compute(f, trails_md_fallback_cvs(all));
  json r = item("rmsd", "mda_rmsd", kAladFrames);
  r["atoms"] = all;
  json g = item("rg", "mda_rg", kAladFrames);
  g["atoms"] = all;
  const json ref = reference_values({r, g});
  for (int fr = 0; fr < f.n_frames; ++fr) {
    EXPECT_NEAR(ours[fr * 2 + 0], 10 * ref["rg"]["rg"][fr].get<double>(), 10 * kTolNm);
    EXPECT_NEAR(ours[fr * 2 + 1], 10 * ref["rmsd"][fr].get<double>(), 10 * kTolNm);
  }
}

TEST(MdtrajCrossCheck, FractionOfNativeContactsOnVillin) {
  const std::string pdb = structure_path("villin-headpiece.pdb");
  const std::string frames = structure_path("villin-frames.txt");
  const Frames f = load(pdb, frames);
  CvSpec custom = spec("q2", "q");
  custom.beta_per_nm = 40;
  custom.lambda = 1.5;
  custom.native_cutoff_nm = 0.5;
  custom.min_residue_separation = 2;
  const auto ours = compute(f, {spec("q", "q"), custom});
  json a = item("q", "q", frames, pdb);
  a.update({{"beta", 50.0}, {"lambda", 1.8}, {"cutoff", 0.45}, {"separation", 3}});
  json b = item("q2", "q", frames, pdb);
  b.update({{"beta", 40.0}, {"lambda", 1.5}, {"cutoff", 0.5}, {"separation", 2}});
  const json ref = reference_values({a, b});
  EXPECT_GT(ref["q"]["n_contacts"].get<int>(), 50);
  for (int fr = 0; fr < f.n_frames; ++fr) {
    EXPECT_NEAR(ours[fr * 2 + 0], ref["q"]["q"][fr].get<double>(), 1e-5) << fr;
    EXPECT_NEAR(ours[fr * 2 + 1], ref["q2"]["q"][fr].get<double>(), 1e-5) << fr;
  }
  EXPECT_GT(ours[0], 0.99);                              // the native frame itself
  EXPECT_LT(ours[(f.n_frames - 1) * 2], ours[0] - 0.1);  // the noisiest frame lost contacts
}

TEST(MdtrajCrossCheck, ContactCountsFromMdtrajDistances) {
  const Frames f = load(kAladPdb, kAladFrames);
  const std::vector<int> a = {0, 1, 2, 3, 4, 5}, b = {16, 17, 18, 19, 20, 21};
  CvSpec rational = spec("rat", "contacts", a);
  rational.groups.push_back(b);
  rational.cutoff_nm = 0.55;
  CvSpec hard = rational;
  hard.name = "hard";
  hard.switching = "hard";
  const auto ours = compute(f, {rational, hard});
  json pairs = json::array();
  for (int i : a)
    for (int j : b) pairs.push_back({i, j});
  json it = item("d", "distances", kAladFrames);
  it["pairs"] = pairs;
  it["periodic"] = false;
  const json ref = reference_values({it});
  for (int fr = 0; fr < f.n_frames; ++fr) {
    double s_rat = 0, s_hard = 0;
    for (const auto& r : ref["d"][fr]) {
      const double x = r.get<double>() / 0.55;
      s_rat += (1 - std::pow(x, 6)) / (1 - std::pow(x, 12));
      s_hard += r.get<double>() < 0.55 ? 1 : 0;
    }
    EXPECT_NEAR(ours[fr * 2 + 0], s_rat, 1e-4);
    EXPECT_NEAR(ours[fr * 2 + 1], s_hard, 1e-12);
  }
}

}  // namespace
}  // namespace trails::cvs
