// Trails-MD files load unchanged (docs/trails-md-compatibility.md): keys Trails-MD accepts
// without effect are notes, not errors (compat:ignored-keys); the OpenMM input combinations of
// Trails-MD's table, with a PDB as top_file (compat:pdb-topology); and every problem of the
// molecular inputs together with the rest of the file.
#include <gtest/gtest.h>

#include <algorithm>

#include "config_test_support.h"
#include "trails/config/config_digest.h"

namespace trails::config {
namespace {

using testing::good_config;
using testing::load_error;
using testing::TempDir;

#define EXPECT_HAS(haystack, needle)                               \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) \
      << "missing: " << (needle) << "\nin:\n"                      \
      << (haystack)

// good_config() with `line` inserted after the first line that starts with `after`.
std::string with_line(const std::string& after, const std::string& line) {
  std::string text = good_config();
  const auto at = text.find(after);
  EXPECT_NE(at, std::string::npos) << after;
  text.insert(text.find('\n', at) + 1, line + "\n");
  return text;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TEST(TrailsMdCompat, SystemTopologyIsANoteWithAnyString) {
  TempDir dir;
  const CampaignConfig c =
      load_campaign_config(dir.write("c.yaml", with_line("system:", "  topology: amber")));
  ASSERT_EQ(c.notes.size(), 1u) << joined(c.notes);
  EXPECT_HAS(c.notes[0], "c.yaml:6:13: system.topology: has no effect");
  // The default writes no note, and the note changes no result.
  const CampaignConfig plain = load_campaign_config(dir.write("d.yaml", good_config()));
  EXPECT_TRUE(plain.notes.empty());
  EXPECT_EQ(c.result_relevant_json(), plain.result_relevant_json());
}

TEST(TrailsMdCompat, KeysOfFeaturesNotChosenAreNotes) {
  TempDir dir;
  std::string text = good_config();
  text.insert(text.find("spawning:"),
              "  gromacs_executable: gmx_mpi\n  gromacs_mdrun_ntomp: 8\n"
              "  amber_extra_args: [-x]\n");
  text +=
      "  voronoi_periodic: true\n  voronoi_grid_size: 100\n  lof_neighbors: 5\n"
      "  we_target_per_bin: 8\n  recycle_basis_index: 2\n"
      "binning:\n  n_fine: 50\n  smoothing: 5\n"
      "execution:\n  partition: gpu\n  walltime: \"02:00:00\"\n"
      "adaptive_model:\n  batch_size: 64\n  encoder_hidden_dims: [64, 32]\n  spib_beta: 0.01\n";
  const CampaignConfig c = load_campaign_config(dir.write("c.yaml", text));
  const std::string notes = joined(c.notes);
  EXPECT_EQ(c.notes.size(), 15u) << notes;
  EXPECT_HAS(notes,
             "engine.gromacs_executable: has no effect with engine.md_engine: builtin (Trails-MD "
             "reads it only with gromacs); accepted and ignored");
  EXPECT_HAS(notes, "engine.amber_extra_args: has no effect with engine.md_engine: builtin");
  EXPECT_HAS(notes, "spawning.voronoi_periodic: has no effect with spawning.spawn_scheme: density");
  EXPECT_HAS(notes, "spawning.voronoi_grid_size: has no effect (Trails-MD reads it but never");
  EXPECT_HAS(notes,
             "binning.n_fine: has no effect with binning.scheme: uniform (Trails-MD reads "
             "it only with gradient or mab)");
  EXPECT_HAS(notes, "execution.partition: has no effect with execution.backend: local");
  EXPECT_HAS(notes,
             "adaptive_model.encoder_hidden_dims: has no effect with space_mode: fixed "
             "(Trails-MD reads it only with tvae, vampnet or spib)");
  // In file order.
  EXPECT_LT(notes.find("gromacs_executable"), notes.find("adaptive_model.batch_size"));
}

TEST(TrailsMdCompat, KeysWithAnEffectInTrailsMdStayRefused) {
  TempDir dir;
  // Trails-MD itself requires spawn_scheme: we for these.
  EXPECT_HAS(load_error(dir.write("a.yaml", good_config() + "  inherit_velocities: true\n")),
             "spawning.inherit_velocities: continues each walker's velocities");
  // With the weighted ensemble they are built: no note, no error.
  const CampaignConfig c = load_campaign_config(dir.write(
      "b.yaml", good_config() +
                    "  spawn_scheme: we\n  recycle_basis_index: 1\n  we_target_per_bin: 3\n"
                    "  we_allocation: per_bin\n  recycle_target: [[0.5, 1.2], [0, 0.2]]\n"));
  EXPECT_TRUE(c.notes.empty()) << joined(c.notes);
  EXPECT_EQ(c.spawning.recycle_basis_index, 1);
  EXPECT_TRUE(c.spawning.we_per_bin);
  EXPECT_EQ(c.spawning.we_target_per_bin, 3);
  ASSERT_EQ(c.spawning.recycle_target.size(), 2u);
  EXPECT_EQ(c.spawning.recycle_target[1][1], 0.2);
}

// A built scheme's own key is a note only when another scheme is chosen.
TEST(TrailsMdCompat, BuiltSchemeKeysAreNotesOnlyWithAnotherScheme) {
  TempDir dir;
  const CampaignConfig v = load_campaign_config(
      dir.write("v.yaml", good_config() + "  spawn_scheme: voronoi\n  voronoi_periodic: true\n"));
  EXPECT_TRUE(v.notes.empty()) << joined(v.notes);
  const CampaignConfig l = load_campaign_config(
      dir.write("l.yaml", good_config() + "  spawn_scheme: lof\n  voronoi_periodic: true\n"));
  EXPECT_HAS(joined(l.notes),
             "spawning.voronoi_periodic: has no effect with spawning.spawn_scheme: lof");
}

// An OpenMM system block around `lines` (paths relative to the config file).
std::string openmm_config_with(const std::string& system_lines, const std::string& extra = "") {
  return "outdir: out\nn_bins: [18, 18]\nmin_values: [-3.2, -3.2]\nmax_values: [3.2, 3.2]\n"
         "system:\n" +
         system_lines +
         "engine:\n  md_engine: openmm\n  platform_name: Reference\n"
         "spawning:\n  walker: 4\n  step: 100\n  stride: 10\n" +
         extra;
}

TEST(TrailsMdCompat, PdbAsTopologyWithASystemFileIsAccepted) {
  TempDir dir;
  dir.write("s.pdb", "x");
  dir.write("system.py", "x");
  const CampaignConfig c = load_campaign_config(dir.write(
      "c.yaml",
      openmm_config_with("  conf_file: s.pdb\n  top_file: s.pdb\n  system_file: system.py\n"
                         "  trajectory_topology_file: s.pdb\n  topology: amber\n")));
  ASSERT_TRUE(c.system.trajectory_topology_file);
  EXPECT_EQ(*c.system.trajectory_topology_file, dir.path() / "s.pdb");
  EXPECT_EQ(c.notes.size(), 1u) << joined(c.notes);
}

TEST(TrailsMdCompat, MolecularInputProblemsComeWithTheOthers) {
  TempDir dir;
  dir.write("s.pdb", "x");
  dir.write("s.prm", "x");
  const std::string m =
      load_error(dir.write("c.yaml", openmm_config_with("  conf_file: s.pdb\n  top_file: s.pdb\n"
                                                        "  trajectory_topology_file: s.prm\n",
                                                        "  walkr: 3\n")));
  EXPECT_HAS(m, "3 problem(s)");
  EXPECT_HAS(m,
             "c.yaml:7:13: system.top_file: a PDB topology holds no force field: set "
             "system.system_file");
  EXPECT_HAS(m,
             "c.yaml:8:29: system.trajectory_topology_file: Trails reads the trajectory "
             "topology from a .pdb or .gro");
  EXPECT_HAS(m, "spawning.walkr: unknown key");
  const std::string f = load_error(
      dir.write("d.yaml", openmm_config_with("  conf_file: s.pdb\n  top_file: s.prm\n")));
  EXPECT_HAS(f, "system.top_file: unsupported topology format '.prm'");
}

// engine.dt is in ps for the molecular engines: 2.0 (a slip for 0.002) is caught by the loader,
// and so by `trails check`, in the engine's own terms; a coarse-grained 0.02 ps passes.
TEST(TrailsMdCompat, AbsurdTimeStepsAreCaughtInTheEnginesUnits) {
  TempDir dir;
  dir.write("s.pdb", "x");
  dir.write("system.py", "x");
  const std::string system = "  conf_file: s.pdb\n  top_file: s.pdb\n  system_file: system.py\n";
  const auto with_dt = [&](const std::string& dt) {
    std::string text = openmm_config_with(system);
    text.replace(text.find("  platform_name"), 0, "  dt: " + dt + "\n");
    return dir.write("c.yaml", text);
  };
  EXPECT_HAS(load_error(with_dt("2.0")),
             "engine.dt: 2 ps (2000 fs) is not an MD time step: OpenMM steps in ps, so 2 fs is "
             "0.002");
  EXPECT_HAS(load_error(with_dt("0.000001")), "is far below any MD time step: OpenMM steps in ps");
  EXPECT_DOUBLE_EQ(load_campaign_config(with_dt("0.02")).engine.openmm.dt, 0.02);
}

}  // namespace
}  // namespace trails::config

namespace trails::config {
namespace {

using testing::good_config;
using testing::load_error;
using testing::TempDir;

// Trails-MD's own form of msm.convergence_criteria (its AIB9 examples): a list of {name, params}.
TEST(TrailsMdCompat, ConvergenceCriteriaAsTrailsMdsList) {
  TempDir dir;
  const std::string msm = "msm:\n  enabled: true\n  estimator: bayesian\n";
  const CampaignConfig listed = load_campaign_config(dir.write(
      "list.yaml", good_config() + msm +
                       "  convergence_criteria:\n"
                       "    - name: implied_timescales\n      params: {tol: 0.1, n_timescales: 2}\n"
                       "    - name: vamp2\n      params: {tol: 0.05}\n"
                       "    - name: statistical_error\n      params: {tol: 0.2}\n"));
  const CampaignConfig mapped = load_campaign_config(
      dir.write("map.yaml",
                good_config() + msm +
                    "  convergence_criteria:\n    implied_timescales: {tol: 0.1, n_timescales: 2}\n"
                    "    vamp2: {tol: 0.05}\n    statistical_error: {tol: 0.2}\n"));
  EXPECT_EQ(listed.msm.criteria.its_tol, 0.1);
  EXPECT_EQ(listed.msm.criteria.vamp2_tol, 0.05);
  EXPECT_EQ(listed.msm.criteria.error_tol, 0.2);
  EXPECT_EQ(digest_of(listed.result_relevant_json()), digest_of(mapped.result_relevant_json()));
  const std::string bad = load_error(
      dir.write("bad.yaml", good_config() + msm +
                                "  convergence_criteria:\n    - vamp2\n    - name: vamp2\n"
                                "    - name: vamp2\n"));
  EXPECT_NE(bad.find("msm.convergence_criteria[0]: must be {name: CRITERION, params: {...}}"),
            std::string::npos)
      << bad;
  EXPECT_NE(bad.find("msm.convergence_criteria[2]: vamp2 is listed twice"), std::string::npos)
      << bad;
}

}  // namespace
}  // namespace trails::config
