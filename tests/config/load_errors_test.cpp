// Invalid configurations: each class of problem gives the right message at the right
// FILE:LINE:COL, all problems come out together, and nothing is written.
#include <gtest/gtest.h>

#include "config_test_support.h"

namespace trails::config {
namespace {

using testing::good_config;
using testing::load_error;
using testing::TempDir;

// good_config() with the first occurrence of `from` replaced by `to`.
std::string with(const std::string& from, const std::string& to) {
  std::string text = good_config();
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Loads `text` as c.yaml and returns the message with the directory stripped from positions
// ("c.yaml:13:11: ..."), so expectations stay short.
std::string error_of(const std::string& text) {
  TempDir dir;
  std::string message = load_error(dir.write("c.yaml", text));
  const std::string prefix = (dir.path() / "").string();
  for (auto at = message.find(prefix); at != std::string::npos; at = message.find(prefix)) {
    message.erase(at, prefix.size());
  }
  return message;
}

#define EXPECT_HAS(haystack, needle)                                                            \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing: " << (needle) << "\nin:\n" \
                                                        << (haystack)

TEST(LoadErrors, HeaderCountsProblemsAndNamesFile) {
  const std::string m = error_of(with("  walker: 4", "  walker: 0"));
  EXPECT_EQ(m.rfind("1 problem(s) in c.yaml:\n", 0), 0u) << m;
  EXPECT_HAS(m, "\nc.yaml:13:11: spawning.walker: must be an integer > 0, got 0");
}

TEST(LoadErrors, ErrorKindIsConfigWithExitCodeTwo) {
  TempDir dir;
  try {
    (void)load_campaign_config(dir.write("c.yaml", with("  walker: 4", "  walker: x")));
    FAIL() << "loaded";
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(e.kind(), core::ErrorKind::Config);
    EXPECT_EQ(e.exit_code(), 2);
  }
}

TEST(LoadErrors, UnknownKeysAtEveryLevelWithSuggestion) {
  EXPECT_HAS(error_of(good_config() + "randm_seed: 1\n"),
             "c.yaml:16:1: randm_seed: unknown key at the top level; did you mean random_seed?");
  EXPECT_HAS(error_of(with("  start:", "  strat:")),
             "c.yaml:6:3: system.strat: unknown key in the system block; did you mean "
             "system.start?");
  EXPECT_HAS(error_of(with("  potential:", "  potental:")),
             "c.yaml:9:3: engine.potental: unknown key in the engine block; did you mean "
             "engine.potential?");
  EXPECT_HAS(error_of(with("  walker:", "  walkers:")),
             "c.yaml:13:3: spawning.walkers: unknown key in the spawning block; did you mean "
             "spawning.walker?");
  EXPECT_HAS(error_of(good_config() + "msm:\n  cadense: 1\n"),
             "c.yaml:17:3: msm.cadense: unknown key in the msm block; did you mean msm.cadence?");
  EXPECT_HAS(error_of(good_config() + "binning:\n  nfine: 100\n"),
             "c.yaml:17:3: binning.nfine: unknown key in the binning block; did you mean "
             "binning.n_fine?");
}

TEST(LoadErrors, KeyOfAnotherBlockNamesWhereItBelongs) {
  EXPECT_HAS(error_of(good_config() + "walker: 16\n"),
             "c.yaml:16:1: walker: unknown key at the top level; `walker` belongs in the "
             "spawning block (did you mean spawning.walker?)");
  EXPECT_HAS(error_of(with("  kT: 15.0", "  random_seed: 3")),
             "engine.random_seed: unknown key in the engine block; `random_seed` belongs at the "
             "top level (did you mean random_seed?)");
}

TEST(LoadErrors, SuggestionFallsBackToOtherBlocksAndCase) {
  EXPECT_HAS(error_of(good_config() + "seeed: 1\n"),
             "seeed: unknown key at the top level; "
             "did you mean engine.seed?");
  EXPECT_HAS(error_of(with("  kT:", "  KT:")),
             "engine.KT: unknown key in the engine block; did you mean engine.kT? (keys are "
             "case-sensitive)");
  EXPECT_HAS(error_of(good_config() + "zzzzzzzzzz: 1\n"),
             "zzzzzzzzzz: unknown key at the top level; see docs/configuration.md");
}

TEST(LoadErrors, WrongTypes) {
  EXPECT_HAS(error_of(with("walker: 4", "walker: \"ten\"")),
             "c.yaml:13:11: spawning.walker: must be an integer > 0, got the string \"ten\"");
  EXPECT_HAS(error_of(with("walker: 4", "walker: \"4\"")), "(remove the quotes)");
  EXPECT_HAS(error_of(with("n_bins: [30, 30]", "n_bins: 30")),
             "c.yaml:2:9: n_bins: must be a list of integers, got the integer 30 (write it as a "
             "list: [30])");
  EXPECT_HAS(error_of(good_config() + "msm:\n  enabled: 1\n"),
             "c.yaml:17:12: msm.enabled: must be true or false, got the integer 1");
  EXPECT_HAS(error_of(with("kT: 15.0", "kT: true")),
             "c.yaml:10:7: engine.kT: must be a number > 0, got the boolean true");
  EXPECT_HAS(error_of(with("  stride: 10", "  stride: 10\n  spawn_type: 3")),
             "spawning.spawn_type: must be a string, got the integer 3");
  EXPECT_HAS(error_of(with("start: [-0.558, 1.442]", "start: origin")),
             "c.yaml:6:10: system.start: must be a list of numbers, got the string \"origin\"");
  EXPECT_HAS(error_of(with("walker: 4", "walker: {n: 4}")),
             "spawning.walker: must be an integer > 0, got a mapping");
  EXPECT_HAS(error_of(with("walker: 4", "walker: 99999999999")),
             "spawning.walker: integer 99999999999 is too large");
  EXPECT_HAS(error_of(with("kT: 15.0", "kT: .nan")), "engine.kT: must be a finite number");
  // A not-built key is still type-checked: a wrong type is a type error, not "not supported".
  const std::string npt = error_of(with("  dt: 0.0001", "  dt: 0.0001\n  npt: maybe"));
  EXPECT_HAS(npt, "engine.npt: must be true or false, got the string \"maybe\"");
  EXPECT_EQ(npt.find("not supported"), std::string::npos) << npt;
}

TEST(LoadErrors, ListElementsReportTheirOwnPosition) {
  EXPECT_HAS(error_of(with("n_bins: [30, 30]", "n_bins: [30, -1]")),
             "c.yaml:2:14: n_bins[1]: must be an integer >= 1, got -1");
  EXPECT_HAS(error_of(with("min_values: [-1.5, -0.5]", "min_values: [-1.5, low]")),
             "c.yaml:3:20: min_values[1]: must be a number, got the string \"low\"");
  EXPECT_HAS(error_of(with("n_bins: [30, 30]", "n_bins: []")), "n_bins: must not be an empty list");
}

TEST(LoadErrors, RangesAndEmptyValues) {
  EXPECT_HAS(error_of(with("dt: 0.0001", "dt: -1")), "engine.dt: must be a number > 0, got -1");
  EXPECT_HAS(error_of(good_config() + "min_success_fraction: 0\n"),
             "min_success_fraction: must be a number in (0, 1], got 0");
  EXPECT_HAS(error_of(good_config() + "min_success_fraction: 1.5\n"),
             "min_success_fraction: must be a number in (0, 1], got 1.5");
  EXPECT_HAS(error_of(good_config() + "  history_window: -2\n"),
             "spawning.history_window: must be an integer >= 0 or null, got -2");
  EXPECT_HAS(error_of(good_config() + "checkpoint_freq: -1\n"),
             "checkpoint_freq: must be an integer >= 0, got -1");
  EXPECT_HAS(error_of(with("  walker: 4", "  walker:")),
             "c.yaml:13:3: spawning.walker: has no value; give one or remove the key to use the "
             "default (10)");
  EXPECT_HAS(error_of(with("potential: muller_brown", "potential: mueller_brown")),
             "engine.potential: must be one of double_well, muller_brown, three_well, harmonic, "
             "biased_walk; got \"mueller_brown\" (did you mean muller_brown?)");
}

TEST(LoadErrors, AllProblemsAreReportedTogetherInFileOrder) {
  std::string text = with("  walker: 4", "  walker: -1");
  text.replace(text.find("  kT: 15.0"), 10, "  kT: 0");
  text += "bogus_key: 1\nmsm:\n  estimator: bayes\n";
  const std::string m = error_of(text);
  EXPECT_EQ(m.rfind("4 problem(s) in c.yaml:", 0), 0u) << m;
  const auto kT = m.find("c.yaml:10:7: engine.kT");
  const auto walker = m.find("c.yaml:13:11: spawning.walker");
  const auto bogus = m.find("c.yaml:16:1: bogus_key");
  const auto msm = m.find("c.yaml:18:14: msm.estimator");
  ASSERT_NE(kT, std::string::npos) << m;
  ASSERT_NE(walker, std::string::npos) << m;
  ASSERT_NE(bogus, std::string::npos) << m;
  ASSERT_NE(msm, std::string::npos) << m;
  EXPECT_LT(kT, walker);
  EXPECT_LT(walker, bogus);
  EXPECT_LT(bogus, msm);
}

TEST(LoadErrors, MissingConfigFileNamesThePath) {
  TempDir dir;
  const std::string m = load_error(dir.path() / "nope.yaml");
  EXPECT_HAS(m, "1 problem(s) in ");
  EXPECT_HAS(m, "configuration file not found: " + (dir.path() / "nope.yaml").string());
  EXPECT_HAS(load_error(dir.path()), "is a directory, not a configuration file");
}

TEST(LoadErrors, YamlSyntaxErrorHasLineAndColumn) {
  const std::string m = error_of("outdir: out\nn_bins: [30, 30\nspawning: {}\n");
  EXPECT_HAS(m, "1 problem(s) in c.yaml:");
  EXPECT_HAS(m, "c.yaml:3:");
  EXPECT_HAS(m, "YAML syntax error: end of sequence flow not found");
}

TEST(LoadErrors, StrayCommaIsASyntaxErrorNotAHang) {
  // yaml-cpp 0.7's LoadAll allocates forever on these; the loader must answer at once.
  EXPECT_HAS(error_of(",\n"), "c.yaml:1:1: YAML syntax error");
  EXPECT_HAS(error_of("# c\n,\noutdir: out\n"), "c.yaml:2:1: YAML syntax error");
  EXPECT_HAS(error_of(good_config() + "---\n,\n"), "c.yaml:16:1: a second YAML document");
}

TEST(LoadErrors, EmptyOrCommentOnlyFile) {
  EXPECT_HAS(error_of(""), "c.yaml:1:1: the file is empty");
  EXPECT_HAS(error_of("# just a comment\n\n"), "c.yaml:1:1: the file is empty");
}

TEST(LoadErrors, MissingRequiredBlocks) {
  const std::string m = error_of("outdir: out\n");
  EXPECT_HAS(m, "c.yaml:1:1: system: missing required block");
  EXPECT_HAS(m, "c.yaml:1:1: engine: missing required block");
  EXPECT_HAS(m, "c.yaml:1:1: spawning: missing required block");
}

TEST(LoadErrors, MdEngineUnknownAndDefault) {
  // Every engine Trails-MD names is built; another name lists them.
  EXPECT_HAS(error_of(with("md_engine: builtin", "md_engine: lammps")),
             "c.yaml:8:14: engine.md_engine: must be one of builtin, openmm, gromacs, amber, "
             "command");
  // Absent md_engine means Trails-MD's default, openmm.
  const std::string m = error_of(with("  md_engine: builtin\n", ""));
  EXPECT_HAS(m,
             "c.yaml:7:1: system.conf_file: engine.md_engine is not set, so Trails-MD's "
             "default openmm applies; the OpenMM engine needs a structure");
  EXPECT_HAS(m,
             "engine.potential: is a built-in engine key, only valid with "
             "`engine.md_engine: builtin`");
  EXPECT_HAS(m, "engine.kT: is a built-in engine key");
  EXPECT_EQ(m.find("engine.dt:"), std::string::npos) << "dt is shared with OpenMM\n" << m;
  // A misspelt engine gets a suggestion and no cascade about built-in keys.
  const std::string typo = error_of(with("md_engine: builtin", "md_engine: bultin"));
  EXPECT_HAS(typo, "1 problem(s)");
  EXPECT_HAS(typo, "(did you mean builtin?)");
}

TEST(LoadErrors, NotBuiltFeaturesAwayFromTheirDefaults) {
  struct Case {
    std::string yaml, expect;
  };
  const Case cases[] = {
      {good_config() + "space_mode: deep-lda\n",
       "space_mode: the learned CV space deep-lda is not "
       "supported by this build of Trails yet; remove the "
       "key or set it to its default (fixed)"},
      {good_config() + "adaptive_feature_type: phi_psi\n",
       "adaptive_feature_type: only applies to molecular engines (engine.md_engine: openmm); "
       "the built-in engine's learned-space features are its particle coordinates; remove the "
       "key or set it to its default (distances)"},
      {with("  dt: 0.0001", "  dt: 0.0001\n  gpu_ids: [0]") + "execution:\n  devices: [0]\n",
       "engine.gpu_ids: engine.gpu_ids and execution.devices are the same setting (Trails-MD's "
       "name and Trails'); give only one of them"},
      {with("  dt: 0.0001", "  dt: 0.0001\n  gpu_ids: [2, 0, 2]"),
       "engine.gpu_ids[2]: device 2 is listed twice; list each device once and raise "
       "execution.workers_per_device to run more walkers on it"},
      {good_config() + "execution:\n  workers_per_device: 2\n",
       "execution.workers_per_device: packs workers onto the devices of execution.devices, which "
       "is not set"},
      {good_config() + "execution:\n  devices: [0]\n  workers_per_device: 0\n",
       "execution.workers_per_device: must be"},
      {good_config() + "execution:\n  devices: [-1]\n", "execution.devices"},
      {good_config() + "execution:\n  binding_check: strict\n", "execution.binding_check"},
      {with("  start:", "  feature_selection: name CA\n  start:"),
       "system.feature_selection: only applies to molecular engines"},
      {good_config() +
           "  spawn_scheme: voronoi\n  voronoi_clusters: 300\n  voronoi_max_clusters: 200\n",
       "spawning.voronoi_clusters: the Voronoi spawner starts with voronoi_clusters = 300 cells, "
       "more than its cap voronoi_max_clusters = 200"},
      {good_config() + "  inherit_velocities: true\n",
       "spawning.inherit_velocities: continues each walker's velocities into its children, which "
       "only the weighted ensemble does: set spawning.spawn_scheme: we"},
      {good_config() + "  spawn_scheme: we\n  inherit_velocities: true\n",
       "spawning.inherit_velocities: the built-in overdamped integrator has no velocities"},
      {good_config() + "  recycle_target: [[0, 1], [0, 1]]\n",
       "spawning.recycle_target: recycles walkers that reach the target, which only the weighted "
       "ensemble does"},
      {good_config() + "  spawn_scheme: we\n  recycle_target: [[0, 1]]\n",
       "spawning.recycle_target: has 1 box but the CV space has 2 dimensions (n_bins)"},
      {good_config() + "  spawn_scheme: we\n  recycle_target: [[1, 0], [0, 1]]\n",
       "lo must be less than hi, got [1, 0]"},
      {good_config() + "  spawn_scheme: we\n  we_allocation: all\n", "spawning.we_allocation"},
      {good_config() + "msm:\n  convergence_criteria:\n    its: {tol: 0.2, n: 2}\n    bogus: {}\n",
       "msm.convergence_criteria.bogus: unknown criterion; known: implied_timescales (its), vamp2, "
       "transition_matrix, stationary_distribution, statistical_error"},
      {good_config() + "msm:\n  convergence_criteria:\n    its: {tol: -1}\n",
       "msm.convergence_criteria.its.tol: must be a number > 0"},
      {good_config() + "msm:\n  convergence_criteria:\n    vamp2: {tolerance: 0.1}\n",
       "msm.convergence_criteria.vamp2.tolerance: unknown parameter; known: tol"},
      {good_config() + "msm:\n  enabled: true\n  lagtime: 5\n  lagtimes: [1, 12]\n",
       "msm.lagtimes[1]: 12 frames is not shorter than one walker segment (10 frames)"},
      {good_config() + "msm:\n  n_metastable: 1\n",
       "msm.n_metastable: PCCA+ needs at least 2 metastable sets"},
      {good_config() + "msm:\n  convergence_criteria:\n    statistical_error: {tol: 0.1}\n",
       "msm.convergence_criteria.statistical_error: uses the Bayesian standard deviation"},
      {good_config() + "binning:\n  scheme: adaptive\n",
       "binning.scheme: must be one of uniform, gradient, mab, eigenvector"},
      {good_config() + "binning:\n  scheme: gradient\n  n_fine: 0\n", "binning.n_fine: must be"},
      {good_config() + "execution:\n  backend: pbs\n  walkers_per_task: 0\n",
       "execution.walkers_per_task: must be"},
      {good_config() + "execution:\n  walker_timeout: 30\n",
       "execution.walker_timeout: needs execution.persistent_workers: true"},
      {good_config() + "execution:\n  persistent_workers: false\n  walker_timeout: 30\n",
       "set execution.persistent_workers: true or remove execution.walker_timeout"},
      {good_config() +
           "feature_selection:\n  enabled: true\n  candidate_feature_types: [phi_psi]\n",
       "feature_selection.candidate_feature_types: feature-type ranking needs a molecular engine "
       "(engine.md_engine: openmm)"},
  };
  for (const Case& c : cases) EXPECT_HAS(error_of(c.yaml), c.expect);
}

TEST(LoadErrors, InputPathsAreResolvedAndChecked) {
  TempDir dir;
  dir.write("sys/conf.gro", "x");
  // Present file: only the engine rule (the path itself is fine).
  std::string ok = with("  start:", "  trajectory_topology_file: ../sys/conf.gro\n  start:");
  const std::string present = load_error(dir.write("cfg/c.yaml", ok));
  EXPECT_HAS(present, "1 problem(s)");
  EXPECT_HAS(present, "system.trajectory_topology_file: needs a molecular engine");
  // Missing file: reported with the resolved path in addition.
  std::string bad = with("  start:", "  initial_trajectory: ../sys/none.xtc\n  start:");
  const std::string missing = load_error(dir.write("cfg/d.yaml", bad));
  EXPECT_HAS(missing, "1 problem(s)");  // initial_trajectory is built: only the missing file
  EXPECT_HAS(missing, "system.initial_trajectory: file not found: " +
                          (dir.path() / "sys" / "none.xtc").string() +
                          " (relative paths are resolved against the config file's directory " +
                          (dir.path() / "cfg").string() + ")");
  // A directory key given a file.
  std::string inc = with("  dt: 0.0001", "  dt: 0.0001\n  gromacs_include_dir: ../sys/conf.gro");
  EXPECT_HAS(
      load_error(dir.write("cfg/e.yaml", inc)),
      "engine.gromacs_include_dir: not a directory: " + (dir.path() / "sys" / "conf.gro").string());
}

TEST(LoadErrors, CvSpaceBoundsAndDimensions) {
  EXPECT_HAS(error_of(with("min_values: [-1.5, -0.5]", "min_values: [-1.5, 2.5]")),
             "c.yaml:3:20: min_values[1]: 2.5 must be less than max_values[1] (2)");
  EXPECT_HAS(error_of(with("min_values: [-1.5, -0.5]\n", "")),
             "c.yaml:1:1: min_values: required in fixed space mode");
  EXPECT_HAS(error_of(with("max_values: [1.2, 2.0]", "max_values: [1.2, 2.0, 3.0]")),
             "c.yaml:4:13: max_values: has 3 values but n_bins has 2 entries");
  EXPECT_HAS(error_of(with("potential: muller_brown", "potential: biased_walk")),
             "c.yaml:2:9: n_bins: has 2 entries but the built-in potential biased_walk is "
             "1-dimensional");
  EXPECT_HAS(error_of(with("  kT: 15.0", "  kT: 15.0\n  dimension: 3")),
             "engine.dimension: only applies to potential: harmonic; muller_brown is "
             "2-dimensional; remove the key");
  EXPECT_NO_THROW(load_campaign_config(
      TempDir().write("c.yaml", with("  kT: 15.0", "  kT: 15.0\n  dimension: 2"))));
}

TEST(LoadErrors, StartPoints) {
  EXPECT_HAS(error_of(with("start: [-0.558, 1.442]", "start: [0.1]")),
             "c.yaml:6:10: system.start: has 1 coordinate but the built-in potential "
             "muller_brown is 2-dimensional");
  const std::string per_walker =
      "start:\n    - [0, 0]\n    - [0, 0]\n    - [0, 0, 0]\n    - [0, 0]";
  EXPECT_HAS(error_of(with("start: [-0.558, 1.442]", per_walker)),
             "c.yaml:9:7: system.start[2]: has 3 coordinates");
  EXPECT_HAS(error_of(with("start: [-0.558, 1.442]", "start: [[0, 0], [1, 1]]")),
             "system.start: gives 2 points but spawning.walker is 4");
  EXPECT_HAS(error_of(with("start: [-0.558, 1.442]", "start: [[0, 0], 1]")),
             "system.start[1]: must be a point (a list of numbers), got the integer 1");
}

TEST(LoadErrors, SpawningCrossRules) {
  EXPECT_HAS(error_of(with("  step: 100", "  step: 5")),
             "c.yaml:15:11: spawning.stride: 10 exceeds spawning.step (5)");
  EXPECT_HAS(error_of(good_config() + "  search_mode: target\n"),
             "c.yaml:16:16: spawning.target: required when spawning.search_mode is target");
  EXPECT_HAS(error_of(good_config() + "  search_mode: target\n  target: [1, 2, 3]\n"),
             "c.yaml:17:11: spawning.target: has 3 coordinates but the CV space has 2 "
             "dimensions (n_bins)");
  EXPECT_HAS(error_of(good_config() + "  n_bins: [10, 10]\n"),
             "c.yaml:16:11: spawning.n_bins: [10, 10] conflicts with the top-level n_bins "
             "[30, 30]; keep only the top-level n_bins");
  // A promoted spawning.n_bins is checked as the n_bins it becomes.
  EXPECT_HAS(error_of(with("n_bins: [30, 30]\n", "") + "  n_bins: [10]\n"),
             "spawning.n_bins: has 1 entry but the built-in potential muller_brown is "
             "2-dimensional");
}

TEST(LoadErrors, StructuralMistakes) {
  EXPECT_HAS(error_of(good_config() + "  walker: 8\n"),
             "c.yaml:16:3: spawning.walker: duplicate key (first given on line 13); keep only one");
  EXPECT_HAS(error_of("- a\n- b\n"), "c.yaml:1:1: a config file must be a mapping");
  EXPECT_HAS(error_of(with("system:\n  start: [-0.558, 1.442]\n", "system: [1, 2]\n")),
             "c.yaml:5:1: system: must be a mapping of keys (the system block), got a list");
  EXPECT_HAS(error_of(good_config() + "feature_selection: name CA\n"),
             "feature_selection: must be a mapping of keys (the feature_selection block), got "
             "the string \"name CA\" (the key system.feature_selection is a different setting)");
  EXPECT_HAS(error_of(good_config() + "---\nmore: 1\n"), "c.yaml:16:1: a second YAML document");
}

TEST(LoadErrors, LoadingNeverWritesAnything) {
  TempDir dir;
  const auto file = dir.write("c.yaml", with("outdir: out", "outdir: made/here") + "oops: 1\n");
  (void)load_error(file);
  std::size_t entries = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1u);
  // And a good load does not create the outdir either.
  const auto good = dir.write("g.yaml", good_config());
  EXPECT_FALSE(std::filesystem::exists(load_campaign_config(good).outdir));
}

// The command engine needs its program and a structure or start point whose length matches
// n_bins; the Amber engine a prmtop and a coordinate file (config/engine_checks.cpp).
TEST(LoadErrors, CommandAndAmberEngineNeeds) {
  const std::string no_keys = "  potential: muller_brown\n  kT: 15.0\n";
  std::string command = with(no_keys, "");
  command.replace(command.find("md_engine: builtin"), 18, "md_engine: command");
  std::string m = error_of(command);
  EXPECT_HAS(m,
             "c.yaml:8:14: engine.command: the command engine needs the program that runs one "
             "segment: set engine.command");
  std::string t = command;
  t.replace(t.find("md_engine: command"), 18, "md_engine: command\n  command: /bin/true");
  t.replace(t.find("n_bins: [30, 30]"), 16, "n_bins: [30, 30, 30]");
  t.replace(t.find("min_values: [-1.5, -0.5]"), 24, "min_values: [-1.5, -0.5, 0]");
  t.replace(t.find("max_values: [1.2, 2.0]"), 22, "max_values: [1.2, 2.0, 1]");
  m = error_of(t);
  EXPECT_HAS(m, "n_bins: has 3 entries but the command engine's point system has 2 coordinates");
  std::string amber = command;
  amber.replace(amber.find("md_engine: command"), 18, "md_engine: amber");
  m = error_of(amber);
  EXPECT_HAS(m, "system.top_file: the Amber engine needs an Amber prmtop");
  EXPECT_HAS(m, "system.conf_file: the Amber engine needs an Amber coordinate or restart file");
}

}  // namespace
}  // namespace trails::config
