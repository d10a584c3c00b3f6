// Valid configurations: values, defaults, path resolution, n_bins promotion, the template, and
// Trails-MD keys accepted at their defaults.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config_test_support.h"
#include "trails/config/config_digest.h"
#include "trails/config/template.h"

namespace trails::config {
namespace {

using testing::good_config;
using testing::TempDir;

TEST(LoadGood, ValuesAndDefaults) {
  TempDir dir;
  const CampaignConfig c = load_campaign_config(dir.write("c.yaml", good_config()));
  EXPECT_EQ(c.config_file, (dir.path() / "c.yaml").lexically_normal());
  EXPECT_EQ(c.outdir, (dir.path() / "out").lexically_normal());
  EXPECT_EQ(c.random_seed, 42u);
  EXPECT_FALSE(c.iterations.has_value());
  EXPECT_EQ(c.n_bins, (std::vector<int>{30, 30}));
  EXPECT_EQ(c.min_values, (std::vector<double>{-1.5, -0.5}));
  EXPECT_EQ(c.max_values, (std::vector<double>{1.2, 2.0}));
  EXPECT_EQ(c.space_mode, "fixed");
  EXPECT_EQ(c.checkpoint_freq, 1);
  EXPECT_EQ(c.min_success_fraction, 1.0);
  EXPECT_EQ(c.binning.scheme, "uniform");
  ASSERT_EQ(c.system.start.size(), 1u);
  EXPECT_EQ(c.system.start[0], (std::vector<double>{-0.558, 1.442}));
  EXPECT_EQ(c.engine.md_engine, "builtin");
  EXPECT_FALSE(c.engine.seed.has_value());
  EXPECT_EQ(c.engine_seed_base(), 42u);
  EXPECT_EQ(c.engine.builtin.potential, Potential::MullerBrown);
  EXPECT_EQ(c.engine.builtin.integrator, Integrator::Overdamped);
  EXPECT_EQ(c.engine.builtin.kT, 15.0);
  EXPECT_EQ(c.engine.builtin.dt, 0.0001);
  EXPECT_EQ(c.engine.builtin.friction, 1.0);
  EXPECT_EQ(c.engine.builtin.mass, 1.0);
  EXPECT_EQ(c.engine.builtin.synthetic_cost_ms, 0.0);
  EXPECT_EQ(c.engine.builtin.dimension, 2);
  EXPECT_EQ(c.spawning.walker, 4);
  EXPECT_EQ(c.spawning.step, 100);
  EXPECT_EQ(c.spawning.stride, 10);
  EXPECT_EQ(c.spawning.frames_per_walker(), 10);
  EXPECT_EQ(c.spawning.max_workers, 4);
  EXPECT_EQ(c.spawning.spawn_scheme, "density");
  EXPECT_EQ(c.spawning.spawn_type, SpawnType::Hard);
  EXPECT_EQ(c.spawning.recent_density_window, 5);
  EXPECT_EQ(c.spawning.search_mode, SearchMode::Explore);
  EXPECT_TRUE(c.spawning.target.empty());
  EXPECT_FALSE(c.spawning.history_window.has_value());
  EXPECT_EQ(c.spawning.convergence_patience, 0);
  EXPECT_EQ(c.spawning.resolution_check_patience, 5);
  EXPECT_EQ(c.spawning.resolution_max_bins, 150);
  EXPECT_EQ(c.spawning.voronoi_max_clusters, 5000);
}

TEST(LoadGood, EveryBuiltKeySet) {
  TempDir dir;
  const std::string text =
      "outdir: /abs/elsewhere\nrandom_seed: 18446744073709551615\niterations: 12\n"
      "n_bins: [40]\nmin_values: [-2]\nmax_values: [2]\nspace_mode: fixed\n"
      "checkpoint_freq: 0\nmin_success_fraction: 0.5\nbinning:\n  scheme: uniform\n"
      "system:\n  start:\n    - [-1.0]\n    - [1.0]\n"
      "engine:\n  md_engine: builtin\n  seed: 7\n  potential: double_well\n"
      "  integrator: langevin\n  kT: 0.5\n  dt: 1e-3\n  friction: 2\n  mass: 3\n"
      "  synthetic_cost_ms: 1.5\n"
      "spawning:\n  walker: 2\n  step: 20\n  stride: 20\n  max_workers: 1\n"
      "  spawn_scheme: density\n  spawn_type: probabilistic\n  recent_density_window: 0\n"
      "  search_mode: target\n  target: [1.0]\n  history_window: 0\n"
      "  convergence_patience: 3\n  resolution_check_patience: 0\n"
      "  resolution_max_bins: 60\n  voronoi_max_clusters: 10\n";
  const CampaignConfig c = load_campaign_config(dir.write("c.yaml", text));
  EXPECT_EQ(c.outdir, "/abs/elsewhere");
  EXPECT_EQ(c.random_seed, 18446744073709551615ull);
  EXPECT_EQ(c.iterations, 12);
  EXPECT_EQ(c.n_bins, (std::vector<int>{40}));
  EXPECT_EQ(c.checkpoint_freq, 0);
  EXPECT_EQ(c.min_success_fraction, 0.5);
  ASSERT_EQ(c.system.start.size(), 2u);
  EXPECT_EQ(c.system.start[1], (std::vector<double>{1.0}));
  EXPECT_EQ(c.engine.seed, 7u);
  EXPECT_EQ(c.engine_seed_base(), 7u);
  EXPECT_EQ(c.engine.builtin.potential, Potential::DoubleWell);
  EXPECT_EQ(c.engine.builtin.integrator, Integrator::Langevin);
  EXPECT_EQ(c.engine.builtin.kT, 0.5);
  EXPECT_EQ(c.engine.builtin.dt, 1e-3);
  EXPECT_EQ(c.engine.builtin.friction, 2.0);
  EXPECT_EQ(c.engine.builtin.mass, 3.0);
  EXPECT_EQ(c.engine.builtin.synthetic_cost_ms, 1.5);
  EXPECT_EQ(c.engine.builtin.dimension, 1);  // the potential's, not the key's default
  EXPECT_EQ(c.spawning.walker, 2);
  EXPECT_EQ(c.spawning.frames_per_walker(), 1);
  EXPECT_EQ(c.spawning.max_workers, 1);
  EXPECT_EQ(c.spawning.spawn_type, SpawnType::Soft);  // probabilistic is an alias of soft
  EXPECT_EQ(c.spawning.recent_density_window, 0);
  EXPECT_EQ(c.spawning.search_mode, SearchMode::Target);
  EXPECT_EQ(c.spawning.target, (std::vector<double>{1.0}));
  EXPECT_EQ(c.spawning.history_window, 0);
  EXPECT_EQ(c.spawning.convergence_patience, 3);
  EXPECT_EQ(c.spawning.resolution_check_patience, 0);
  EXPECT_EQ(c.spawning.resolution_max_bins, 60);
  EXPECT_EQ(c.spawning.voronoi_max_clusters, 10);
}

TEST(LoadGood, PotentialDimensions) {
  struct Case {
    const char* potential;
    const char* extra;
    const char* grid;
    int dim;
  };
  const Case cases[] = {
      {"double_well", "", "n_bins: [10]\nmin_values: [-2]\nmax_values: [2]\n", 1},
      {"biased_walk", "", "n_bins: [10]\nmin_values: [0]\nmax_values: [20]\n", 1},
      {"three_well", "", "n_bins: [10, 10]\nmin_values: [-2, -2]\nmax_values: [2, 2]\n", 2},
      {"harmonic", "  dimension: 3\n",
       "n_bins: [5, 5, 5]\nmin_values: [-1, -1, -1]\nmax_values: [1, 1, 1]\n", 3},
      {"harmonic", "", "n_bins: [5, 5]\nmin_values: [-1, -1]\nmax_values: [1, 1]\n", 2},
  };
  for (const Case& k : cases) {
    TempDir dir;
    const std::string text = std::string(k.grid) + "system: {}\nengine:\n  md_engine: builtin\n" +
                             "  potential: " + k.potential + "\n" + k.extra +
                             "spawning:\n  walker: 2\n";
    const CampaignConfig c = load_campaign_config(dir.write("c.yaml", text));
    EXPECT_EQ(c.engine.builtin.dimension, k.dim) << k.potential;
    EXPECT_EQ(c.cv_dimension(), k.dim) << k.potential;
    EXPECT_TRUE(c.system.start.empty());  // no start: the potential's default
  }
}

TEST(LoadGood, OutdirResolvedAgainstConfigDirectoryNotCwd) {
  TempDir dir;
  std::string text = good_config();
  text.replace(text.find("outdir: out"), 11, "outdir: ../runs/./mb");
  const auto file = dir.write("sub/c.yaml", text);
  const CampaignConfig c = load_campaign_config(file);
  EXPECT_EQ(c.outdir, (dir.path() / "runs" / "mb").lexically_normal());
  EXPECT_FALSE(std::filesystem::exists(c.outdir));  // loading never creates anything
}

TEST(LoadGood, DefaultOutdirIsOutputNextToConfig) {
  TempDir dir;
  std::string text = good_config();
  text.erase(0, text.find('\n') + 1);  // drop the outdir line
  const CampaignConfig c = load_campaign_config(dir.write("c.yaml", text));
  EXPECT_EQ(c.outdir, (dir.path() / "output").lexically_normal());
}

TEST(LoadGood, RelativeConfigPathIsMadeAbsolute) {
  TempDir dir;
  dir.write("c.yaml", good_config());
  const auto old = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  const CampaignConfig c = load_campaign_config("c.yaml");
  std::filesystem::current_path(old);
  EXPECT_TRUE(c.config_file.is_absolute());
  EXPECT_EQ(c.outdir, (dir.path() / "out").lexically_normal());
}

TEST(LoadGood, SpawningNBinsIsPromotedWhenTopLevelAbsent) {
  TempDir dir;
  std::string text = good_config();
  text.replace(text.find("n_bins: [30, 30]\n"), 17, "");
  text += "  n_bins: [12, 24]\n";
  const CampaignConfig c = load_campaign_config(dir.write("c.yaml", text));
  EXPECT_EQ(c.n_bins, (std::vector<int>{12, 24}));
}

TEST(LoadGood, SpawningNBinsEqualToTopLevelIsAccepted) {
  TempDir dir;
  const CampaignConfig c =
      load_campaign_config(dir.write("c.yaml", good_config() + "  n_bins: [30, 30]\n"));
  EXPECT_EQ(c.n_bins, (std::vector<int>{30, 30}));
}

TEST(LoadGood, TrailsMdKeysAtTheirDefaultsAreAccepted) {
  TempDir dir;
  std::string text = good_config();
  // Every not-built key written out with exactly Trails-MD's default value.
  text.insert(0,
              "adaptive_feature_type: distances\nadaptive_angle_encoding: raw\n"
              "retrain_policy: fixed\nretrain_freq: 1\nvamp_retrain_tol: 0.1\n"
              "retrain_min_interval: 1\nretrain_max_interval: null\naggregate_memory: true\n"
              "max_adaptive_memory_frames: 50000\nsave_features: false\n");
  text.insert(text.find("  start:"),
              "  conf_file: null\n  top_file: ~\n  feature_selection: protein and not (type H)\n"
              "  topology:\n");
  text.insert(text.find("spawning:"),
              "  temperature: 300\n  pressure: 1.0\n  npt: false\n  platform_name: CUDA\n"
              "  precision: mixed\n  gpu_ids: null\n  equilibrate: no\n"
              "  gromacs_executable: gmx\n  gromacs_mdrun_ntmpi: 1\n  gromacs_mdrun_pin: null\n"
              "  gromacs_mdrun_extra_args: []\n  gromacs_grompp_maxwarn: 0\n"
              "  amber_executable: pmemd\n  amber_extra_args: []\n"
              "  amber_trajectory_format: auto\n");
  text +=
      "  spawn_scheme: density\n  voronoi_clusters: 150\n  voronoi_grid_size: 250\n"
      "  voronoi_periodic: false\n  lof_neighbors: 20\n  inherit_velocities: false\n"
      "  recycle_target: null\n  recycle_basis_index: 0\n  we_target_per_bin: 4\n"
      "msm:\n  enabled: false\n  cadence: 1\n  min_frames: 1000\n  n_microstates: 100\n"
      "  cluster_method: kmeans\n  lagtime: 10\n  estimator: mle\n  lagtimes: null\n"
      "  convergence_criteria:\n    its: {tol: 0.1, n: 2}\n    vamp2: {tol: 0.05}\n"
      "  convergence_mode: all\n  convergence_patience: 2\n  spawn_alpha: 1\n"
      "  spawn_leverage: 1\n  spawn_uncertainty: true\n"
      "binning:\n  scheme: uniform\n  n_fine: 100\n  smoothing: 3\n"
      "execution:\n  backend: local\n  walker_timeout: null\n  persistent_workers: false\n"
      "  walltime: \"01:00:00\"\n  cpus_per_task: 1\n  gpus_per_task: 0\n"
      "  extra_directives: []\n  module_loads: []\n  job_name: trails-md\n"
      "  submit_retry_limit: 20\n  submit_retry_interval: 15\n  submit_timeout: 60\n"
      "  poll_interval: 30\n  marker_grace: 30\n  max_retries: 1\n"
      "feature_selection:\n  enabled: false\n  method: greedy_vamp\n  lagtime: 10\n"
      "  cadence: 5\n  max_features: null\n  dim: null\n  min_gain: 1e-4\n"
      "  candidate_feature_types: []\n"
      "adaptive_model:\n  latent_dim: 2\n  lagtime: 5\n  encoder_hidden_dims: [256, 128]\n"
      "  decoder_hidden_dims: [128, 256]\n  dropout_rate: 0.1\n  learning_rate: 5.0e-4\n"
      "  epochs: 50\n  batch_size: auto\n  tvae_beta: 1.0\n  spib_n_states: 10\n"
      "  spib_beta: 0.001\n  spib_refine_rounds: 5\n  deep_tica_hidden_dims: [256, 128]\n";
  const CampaignConfig c = load_campaign_config(dir.write("c.yaml", text));
  EXPECT_EQ(c.spawning.spawn_scheme, "density");
  // Written-out defaults do not change what the run does.
  const CampaignConfig plain = load_campaign_config(dir.write("plain.yaml", good_config()));
  EXPECT_EQ(digest_of(c.result_relevant_json()), digest_of(plain.result_relevant_json()));
}

// Worker processes and their hang guard: read, and not result-relevant (a run may switch).
TEST(LoadGood, PersistentWorkersAndWalkerTimeout) {
  TempDir dir;
  const CampaignConfig c = load_campaign_config(dir.write(
      "c.yaml", good_config() + "execution:\n  persistent_workers: true\n  walker_timeout: 2.5\n"));
  EXPECT_TRUE(c.execution.persistent_workers);
  ASSERT_TRUE(c.execution.walker_timeout.has_value());
  EXPECT_EQ(*c.execution.walker_timeout, 2.5);
  EXPECT_EQ(c.effective_json()["execution"]["walker_timeout"], 2.5);
  const CampaignConfig plain = load_campaign_config(dir.write("plain.yaml", good_config()));
  EXPECT_FALSE(plain.execution.persistent_workers);
  EXPECT_FALSE(plain.execution.walker_timeout.has_value());
  EXPECT_EQ(digest_of(c.result_relevant_json()), digest_of(plain.result_relevant_json()));
}

TEST(LoadGood, PyYamlBooleanSpellingsAreBooleans) {
  TempDir dir;
  for (const char* spelling : {"no", "No", "off", "OFF", "false", "False"}) {
    const std::string text = good_config() + "msm:\n  enabled: " + spelling + "\n";
    EXPECT_NO_THROW(load_campaign_config(dir.write("c.yaml", text))) << spelling;
  }
}

TEST(LoadGood, TargetIgnoredOutsideTargetMode) {
  TempDir dir;
  const CampaignConfig c =
      load_campaign_config(dir.write("c.yaml", good_config() + "  target: [0.5, 0.5]\n"));
  EXPECT_EQ(c.spawning.search_mode, SearchMode::Explore);
  EXPECT_TRUE(c.spawning.target.empty());
}

TEST(Template, LoadsWithoutAProblem) {
  TempDir dir;
  const auto file = dir.write("config.yaml", std::string(campaign_template()));
  const CampaignConfig c = load_campaign_config(file);
  EXPECT_EQ(c.outdir, (dir.path() / "runs" / "muller-brown").lexically_normal());
  EXPECT_EQ(c.iterations, 30);
  EXPECT_EQ(c.n_bins, (std::vector<int>{30, 30}));
  EXPECT_EQ(c.min_values, (std::vector<double>{-1.5, -0.5}));
  EXPECT_EQ(c.max_values, (std::vector<double>{1.2, 2.0}));
  EXPECT_EQ(c.system.start, (std::vector<std::vector<double>>{{-0.558, 1.442}}));
  EXPECT_EQ(c.engine.md_engine, "builtin");
  EXPECT_EQ(c.engine.builtin.potential, Potential::MullerBrown);
  EXPECT_EQ(c.engine.builtin.kT, 15.0);
  EXPECT_EQ(c.engine.builtin.dt, 0.0001);
  EXPECT_EQ(c.spawning.walker, 16);
  EXPECT_EQ(c.spawning.step, 500);
  EXPECT_EQ(c.spawning.stride, 10);
  EXPECT_EQ(c.spawning.max_workers, 2);
}

TEST(Template, ExampleFileIsByteIdentical) {
  std::ifstream in(std::filesystem::path(TRAILS_SOURCE_DIR) / "examples" / "template.yaml",
                   std::ios::binary);
  ASSERT_TRUE(in) << "examples/template.yaml is missing";
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), std::string(campaign_template()));
}

TEST(Template, EveryKeyItSetsIsExplainedByAComment) {
  // Each `key:` line is directly preceded by a comment line (the annotation).
  std::istringstream in{std::string(campaign_template())};
  std::string line, previous;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(' ');
    const bool is_key =
        first != std::string::npos && line[first] != '#' && line.find(':') != std::string::npos;
    if (is_key && line.back() != ':') {
      const auto p = previous.find_first_not_of(' ');
      EXPECT_TRUE(p != std::string::npos && previous[p] == '#') << "unexplained: " << line;
    }
    previous = line;
  }
}

}  // namespace
}  // namespace trails::config

namespace trails::config {
namespace {

TEST(LoadGood, MsmBlockIsTyped) {
  TempDir dir;
  const std::string text =
      good_config() +
      "msm:\n  enabled: true\n  cadence: 2\n  min_frames: 50\n  n_microstates: 20\n"
      "  cluster_method: regspace\n  stable_clustering: true\n  lagtime: 3\n"
      "  lagtimes: [1, 2, 4]\n  convergence_criteria:\n    implied_timescales: {tol: 0.2, n: 1}\n"
      "    transition_matrix: {tol: 0.5}\n  convergence_mode: any\n  convergence_patience: 3\n";
  const CampaignConfig c = load_campaign_config(dir.write("c.yaml", text));
  EXPECT_TRUE(c.msm.enabled);
  EXPECT_EQ(c.msm.cadence, 2);
  EXPECT_EQ(c.msm.min_frames, 50);
  EXPECT_EQ(c.msm.n_microstates, 20);
  EXPECT_EQ(c.msm.cluster_method, ClusterMethod::RegularSpace);
  EXPECT_TRUE(c.msm.stable_clustering);
  EXPECT_EQ(c.msm.lagtime, 3);
  EXPECT_EQ(c.msm.lagtimes, (std::vector<int>{1, 2, 4}));
  ASSERT_TRUE(c.msm.criteria.its_tol);
  EXPECT_DOUBLE_EQ(*c.msm.criteria.its_tol, 0.2);
  EXPECT_EQ(c.msm.criteria.its_n, 1);
  EXPECT_FALSE(c.msm.criteria.vamp2_tol);
  ASSERT_TRUE(c.msm.criteria.tm_tol);
  EXPECT_DOUBLE_EQ(c.msm.criteria.tm_min_flux, 1e-4);
  EXPECT_EQ(c.msm.convergence_mode, ConvergenceMode::Any);
  EXPECT_EQ(c.msm.convergence_patience, 3);
  EXPECT_EQ(c.result_relevant_json()["msm"]["lagtime"], 3);
}

// Trails-MD writes msm.convergence_criteria as a list of {name, params} (its template and AIB9
// MSM examples, with its parameter names): read as the same criteria as the mapping form.
TEST(LoadGood, ConvergenceCriteriaInTrailsMdsListForm) {
  TempDir dir;
  const std::string msm =
      "msm:\n  enabled: true\n  estimator: bayesian\n  lagtime: 3\n  convergence_criteria:\n";
  const CampaignConfig list = load_campaign_config(dir.write(
      "list.yaml", good_config() + msm +
                       "    - name: implied_timescales\n      params: {tol: 0.3, n_timescales: 4}\n"
                       "    - name: vamp2\n      params: {tol: 0.07}\n"
                       "    - name: statistical_error\n      params: {tol: 0.2}\n"));
  const CampaignConfig mapping = load_campaign_config(
      dir.write("map.yaml", good_config() + msm +
                                "    implied_timescales: {tol: 0.3, n_timescales: 4}\n"
                                "    vamp2: {tol: 0.07}\n    statistical_error: {tol: 0.2}\n"));
  ASSERT_TRUE(list.msm.criteria.its_tol);
  EXPECT_DOUBLE_EQ(*list.msm.criteria.its_tol, 0.3);
  EXPECT_EQ(list.msm.criteria.its_n, 4);
  ASSERT_TRUE(list.msm.criteria.vamp2_tol);
  EXPECT_DOUBLE_EQ(*list.msm.criteria.vamp2_tol, 0.07);
  ASSERT_TRUE(list.msm.criteria.error_tol);
  EXPECT_DOUBLE_EQ(*list.msm.criteria.error_tol, 0.2);
  EXPECT_FALSE(list.msm.criteria.tm_tol);
  EXPECT_EQ(list.result_relevant_json()["msm"], mapping.result_relevant_json()["msm"]);
  // The same validation as the mapping form, with the entry's place in the list.
  const auto error_of = [&](const std::string& entries) {
    try {
      (void)load_campaign_config(dir.write("bad.yaml", good_config() + msm + entries));
    } catch (const core::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  EXPECT_NE(error_of("    - name: vamp2\n      params: {tolerance: 0.1}\n")
                .find("msm.convergence_criteria.vamp2.tolerance: unknown parameter; known: tol"),
            std::string::npos);
  EXPECT_NE(error_of("    - name: its\n      params: {n_timescales: 0}\n")
                .find("msm.convergence_criteria.its.n_timescales: must be an integer >= 1"),
            std::string::npos);
  EXPECT_NE(error_of("    - name: vamp2\n    - name: vamp2\n")
                .find("msm.convergence_criteria[1]: vamp2 is listed twice"),
            std::string::npos);
  EXPECT_NE(error_of("    - vamp2\n").find("msm.convergence_criteria[0]: must be {name: CRITERION"),
            std::string::npos);
  EXPECT_NE(error_of("    - name: vamp2\n      tol: 0.1\n")
                .find("msm.convergence_criteria[0]: must be {name: CRITERION"),
            std::string::npos);
}

TEST(LoadGood, ExecutionDevicesAndTheirTrailsMdName) {
  TempDir dir;
  const CampaignConfig plain = load_campaign_config(dir.write("a.yaml", good_config()));
  EXPECT_TRUE(plain.execution.devices.empty());
  EXPECT_EQ(plain.execution.workers_per_device, 1);
  EXPECT_EQ(plain.execution.binding_check, "warn");
  const CampaignConfig c = load_campaign_config(dir.write(
      "b.yaml", good_config() +
                    "execution:\n  devices: [3, 1]\n  workers_per_device: 4\n  binding_check: "
                    "fail\n"));
  EXPECT_EQ(c.execution.devices, (std::vector<int>{3, 1}));
  EXPECT_EQ(c.execution.devices_key, "execution.devices");
  EXPECT_EQ(c.execution.workers_per_device, 4);
  EXPECT_EQ(c.execution.binding_check, "fail");
  EXPECT_EQ(c.effective_json()["execution"]["devices"], nlohmann::json({3, 1}));
  // Placement never changes results: the result digest is the plain run's.
  EXPECT_EQ(c.result_relevant_json(), plain.result_relevant_json());
  std::string text = good_config();
  const std::string dt = "  dt: 0.0001";
  text.replace(text.find(dt), dt.size(), dt + "\n  gpu_ids: [0, 2]");
  const CampaignConfig g = load_campaign_config(dir.write("c.yaml", text));
  EXPECT_EQ(g.execution.devices, (std::vector<int>{0, 2}));
  EXPECT_EQ(g.execution.devices_key, "engine.gpu_ids");
  EXPECT_EQ(g.effective_json()["engine"]["gpu_ids"], nlohmann::json({0, 2}));
}

TEST(LoadGood, WorkersPerDeviceAutoIsZeroAndRecordedAsAuto) {
  TempDir dir;
  const CampaignConfig c = load_campaign_config(dir.write(
      "a.yaml", good_config() + "execution:\n  devices: [0, 1]\n  workers_per_device: auto\n"));
  EXPECT_EQ(c.execution.workers_per_device, 0);
  EXPECT_EQ(c.effective_json()["execution"]["workers_per_device"], "auto");
  // Placement never changes results: the result digest is the plain run's.
  const CampaignConfig plain = load_campaign_config(dir.write("b.yaml", good_config()));
  EXPECT_EQ(c.result_relevant_json(), plain.result_relevant_json());
}

}  // namespace
}  // namespace trails::config
