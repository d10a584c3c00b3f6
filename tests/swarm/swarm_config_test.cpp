// Loading swarm configurations (docs/swarm.md, "Keys"): values, PathGennie's aliases and
// profile, and every problem reported with its file, line and key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "trails/config/execution_spec.h"
#include "trails/config/swarm_config.h"
#include "trails/core/error.h"
#include "trails/store/cycle_record.h"

namespace trails::config {
namespace {

namespace fs = std::filesystem;

class SwarmConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("trails-swarm-config-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& text) const {
    fs::path file = dir_ / "input.yaml";
    std::ofstream(file) << text;
    return file;
  }
  // The ConfigError text of loading `text` (fails the test when it loads).
  std::string error_of(const std::string& text) const {
    try {
      (void)load_swarm_config(write(text));
    } catch (const core::ConfigError& e) {
      return e.what();
    }
    ADD_FAILURE() << "loaded:\n" << text;
    return {};
  }

  fs::path dir_;
};

const std::string kEngine =
    "engine:\n  md_engine: builtin\n  potential: muller_brown\n  kT: 15\n  dt: 0.0005\n";

// A config that switched modes keeps keys of the other one: accepted with a note naming the key
// and why it has no effect (as a campaign does), and left out of the result-relevant record.
TEST_F(SwarmConfigTest, KeysOfTheOtherModeAreNotedNotRefused) {
  const std::string body =
      "  tau1_steps: 5\n  tau2_steps: 10\n  max_trial: 8\n  max_cycle: 50\n" + kEngine;
  const auto escape = load_swarm_config(
      write("pathgennie:\n  mode: escape\n  target_projection: [0.6, 0.0]\n" + body +
            "convergence:\n  distance_to_target: 0.05\n  metric_at_least: 1.0\n"));
  ASSERT_EQ(escape.notes.size(), 2U);
  EXPECT_NE(escape.notes[0].find("input.yaml:3:22: pathgennie.target_projection: has no "
                                 "effect: mode escape measures progress away from the start"),
            std::string::npos)
      << escape.notes[0];
  EXPECT_NE(escape.notes[1].find("convergence.distance_to_target: has no effect"),
            std::string::npos);
  EXPECT_TRUE(escape.swarm.target_projection.empty());
  EXPECT_FALSE(escape.swarm.distance_to_target.has_value());
  const auto target = load_swarm_config(
      write("pathgennie:\n  mode: target\n  target_projection: [0.6, 0.0]\n" + body +
            "convergence:\n  distance_to_target: 0.05\n  metric_at_least: 1.0\n"));
  ASSERT_EQ(target.notes.size(), 1U);
  EXPECT_NE(target.notes[0].find("convergence.metric_at_least: has no effect: mode target"),
            std::string::npos);
  EXPECT_FALSE(target.swarm.metric_at_least.has_value());
}

TEST_F(SwarmConfigTest, ReadsThePathGennieKeys) {
  const auto c = load_swarm_config(
      write("workdir: out\n"
            "pathgennie:\n  mode: target\n  target_projection: [0.6, 0.0]\n  tau1_steps: 5\n"
            "  tau2_steps: 10\n  max_trial: 8\n  max_cycle: 50\n  sigma: 0.25\n  seed: 42\n"
            "  devices: [0, 1]\n  tau1_workers: 3\n  reject_worse_tau2: true\n  paths: 2\n"
            "convergence:\n  distance_to_target: 0.05\n" +
            kEngine));
  EXPECT_EQ(c.workdir, dir_ / "out");
  EXPECT_EQ(c.swarm.mode, SwarmMode::Target);
  EXPECT_EQ(c.swarm.target_projection, (std::vector<double>{0.6, 0.0}));
  EXPECT_EQ(c.swarm.tau1_steps, 5);
  EXPECT_EQ(c.swarm.tau2_steps, 10);
  EXPECT_EQ(c.swarm.max_trial, 8);
  EXPECT_EQ(c.swarm.max_cycle, 50);
  EXPECT_DOUBLE_EQ(c.swarm.sigma, 0.25);
  EXPECT_EQ(c.swarm.seed, 42U);
  EXPECT_EQ(c.swarm.devices, (std::vector<int>{0, 1}));
  EXPECT_EQ(c.swarm.workers_per_device, 3);  // tau1_workers: PathGennie's old name
  EXPECT_TRUE(c.swarm.reject_worse_tau2);
  EXPECT_FALSE(c.swarm.reject_worse_anchor);
  EXPECT_EQ(c.swarm.paths, 2);
  EXPECT_EQ(c.swarm.distance_to_target, 0.05);
  EXPECT_EQ(c.md.engine.md_engine, "builtin");
  EXPECT_DOUBLE_EQ(c.md.engine.builtin.kT, 15.0);
}

TEST_F(SwarmConfigTest, DiscoveryProfileAppliesUnderExplicitKeys) {
  const auto c = load_swarm_config(
      write("pathgennie:\n  profile: discovery\n  max_cycle: 10\n  tau2_steps: 20\n" + kEngine));
  EXPECT_EQ(c.swarm.tau1_steps, 2);
  EXPECT_EQ(c.swarm.tau2_steps, 20);  // explicit wins
  EXPECT_EQ(c.swarm.max_trial, 15);
  EXPECT_DOUBLE_EQ(c.swarm.sigma, 0.1);
}

TEST_F(SwarmConfigTest, SamplingProfileAppliesUnderExplicitKeys) {
  const auto c = load_swarm_config(
      write("pathgennie:\n  profile: sampling\n  max_cycle: 10\n  max_trial: 8\n" + kEngine));
  EXPECT_EQ(c.swarm.tau1_steps, 5);
  EXPECT_EQ(c.swarm.tau2_steps, 10);
  EXPECT_EQ(c.swarm.max_trial, 8);  // explicit wins
  EXPECT_DOUBLE_EQ(c.swarm.sigma, 0.5);
}

TEST_F(SwarmConfigTest, ProblemsNameFileLineAndKey) {
  const std::string text = error_of(
      "pathgennie:\n  max_trials: 8\n  tau1_steps: 0\n  max_cycle: 5\n  tau2_steps: 2\n"
      "projection:\n  module: cv\n" +
      kEngine + "  potentail: x\n");
  EXPECT_NE(text.find("input.yaml:2:3: pathgennie.max_trials: unknown key in the pathgennie "
                      "block; did you mean pathgennie.max_trial?"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("input.yaml:3:15: pathgennie.tau1_steps"), std::string::npos) << text;
  EXPECT_NE(text.find("pathgennie.max_trial: required"), std::string::npos) << text;
  EXPECT_NE(text.find("input.yaml:6:1: projection.function: missing"), std::string::npos) << text;
  EXPECT_NE(text.find("input.yaml:7:11: projection.module: no Python module"), std::string::npos)
      << text;
  EXPECT_NE(text.find("input.yaml:13:3: engine.potentail: unknown key"), std::string::npos) << text;
}

TEST_F(SwarmConfigTest, CrossFieldRules) {
  const std::string base = "  tau1_steps: 2\n  tau2_steps: 2\n  max_trial: 4\n  max_cycle: 5\n";
  EXPECT_NE(error_of("pathgennie:\n  mode: target\n" + base + kEngine)
                .find("target and fold modes need the target point"),
            std::string::npos);
  EXPECT_NE(error_of("pathgennie:\n  workers_per_device: 2\n  tau1_workers: 2\n" + base + kEngine)
                .find("keep only workers_per_device"),
            std::string::npos);
  EXPECT_NE(error_of("pathgennie:\n  paths: 2\n" + base + kEngine +
                     "system:\n  start: [[0, 0], [1, 1], [2, 2]]\n")
                .find("gives 3 points but pathgennie.paths is 2"),
            std::string::npos);
  EXPECT_NE(
      error_of("pathgennie:\n  mode: target\n  target_projection: [1, 2, 3]\n" + base + kEngine)
          .find("has 3 values but a built-in run's CVs are its 2 coordinates"),
      std::string::npos);
  EXPECT_NE(error_of("pathgennie:\n  temperature: 300\n" + base + kEngine)
                .find("the built-in engine's temperature is engine.kT"),
            std::string::npos);
  EXPECT_NE(error_of("pathgennie:\n  mode: unfold\n" + base + kEngine)
                .find("pathgennie.unfold_weights: unfold mode needs one weight per CV"),
            std::string::npos);
  EXPECT_NE(error_of("pathgennie:\n" + base + kEngine + "convergence:\n  cv_at_most: {x0: a}\n")
                .find("convergence.cv_at_most.x0: must be a number"),
            std::string::npos);
  EXPECT_NE(
      error_of("pathgennie:\n  devices: [0, 0]\n" + base + kEngine).find("lists a device twice"),
      std::string::npos);
}

TEST_F(SwarmConfigTest, PathgennieTemperatureIsTheVelocityTemperatureBesideAnotherThermostat) {
  const std::string pdb =
      std::string(TRAILS_SOURCE_DIR) + "/examples/alanine-dipeptide/alanine-dipeptide.pdb";
  const auto load = [&](const std::string& engine_extra) {
    return load_swarm_config(write(
        "pathgennie:\n  temperature: 355\n  tau1_steps: 2\n  tau2_steps: 2\n"
        "  max_trial: 2\n  max_cycle: 2\ncvs:\n  - {name: phi, kind: phi, resid: 2}\n"
        "system:\n  conf_file: " +
        pdb + "\n  forcefield: [amber14-all.xml]\nengine:\n  md_engine: openmm\n" + engine_extra));
  };
  const auto split = load("  temperature: 300\n");
  EXPECT_DOUBLE_EQ(split.md.engine.openmm.temperature, 300.0);
  EXPECT_EQ(split.md.engine.openmm.velocity_temperature, 355.0);
  EXPECT_EQ(std::get<OpenMMSpec>(split.engine_spec()).params.velocity_temperature, 355.0);
  const auto alone = load("");
  EXPECT_DOUBLE_EQ(alone.md.engine.openmm.temperature, 355.0);
  EXPECT_FALSE(alone.md.engine.openmm.velocity_temperature.has_value());
  EXPECT_NE(split.result_relevant_json(), alone.result_relevant_json());
}

TEST_F(SwarmConfigTest, MolecularTargetsAreCheckedAgainstTheCvsNotAPotential) {
  // An OpenMM run's CV count is known only once its topology is read (swarm_driver.cpp); the
  // built-in potential's dimension (a default here) must not be applied to it.
  const std::string pdb =
      std::string(TRAILS_SOURCE_DIR) + "/examples/alanine-dipeptide/alanine-dipeptide.pdb";
  const auto c = load_swarm_config(
      write("pathgennie:\n  mode: target\n  target_projection: [1.0]\n  tau1_steps: 2\n"
            "  tau2_steps: 2\n  max_trial: 2\n  max_cycle: 2\ncvs:\n  - {name: phi, kind: phi, "
            "resid: 2}\n"
            "system:\n  conf_file: " +
            pdb +
            "\n  forcefield: [amber14-all.xml]\n"
            "engine:\n  md_engine: openmm\n  platform_name: Reference\n"));
  EXPECT_EQ(c.swarm.target_projection, (std::vector<double>{1.0}));
  EXPECT_EQ(c.md.engine.md_engine, "openmm");
}

TEST_F(SwarmConfigTest, DigestIgnoresWhereAndOnHowManyDevices) {
  const std::string base = "  tau1_steps: 2\n  tau2_steps: 2\n  max_trial: 4\n";
  const auto a = load_swarm_config(write("pathgennie:\n" + base + "  max_cycle: 5\n" + kEngine));
  const auto b = load_swarm_config(write("workdir: elsewhere\npathgennie:\n" + base +
                                         "  max_cycle: 9\n  devices: [0, 1, 2]\n" + kEngine));
  EXPECT_EQ(a.result_relevant_json(), b.result_relevant_json());
  const auto c =
      load_swarm_config(write("pathgennie:\n" + base + "  max_cycle: 5\n  sigma: 0.3\n" + kEngine));
  EXPECT_NE(a.result_relevant_json(), c.result_relevant_json());
}

// A swarm's execution: block (docs/execution.md, "The swarm and the backends"): the keys of the
// backend table, read into the spec with the swarm's own device keys; arrays and the campaign's
// device keys are refused at their key; where trials run never changes the digest.
TEST_F(SwarmConfigTest, ExecutionBlockFillsTheBackendSpec) {
  const std::string swarm =
      "pathgennie:\n  mode: escape\n  tau1_steps: 5\n  tau2_steps: 5\n  max_trial: 4\n"
      "  max_cycle: 3\n  devices: [0, 1]\n  workers_per_device: 2\n";
  const auto local = load_swarm_config(write(swarm + kEngine));
  const ExecutionSpec threads = execution_spec_of(local);
  EXPECT_EQ(threads.backend, ExecutionBackend::Local);
  EXPECT_FALSE(threads.persistent_workers);
  EXPECT_EQ(threads.devices, (std::vector<int>{0, 1}));
  EXPECT_EQ(threads.workers_per_device, 2);
  EXPECT_EQ(threads.devices_key, "pathgennie.devices");
  EXPECT_EQ(threads.workers_key, "pathgennie.workers_per_device");

  const auto procs = load_swarm_config(
      write(swarm + kEngine + "execution:\n  persistent_workers: true\n  walker_timeout: 30\n"));
  EXPECT_TRUE(execution_spec_of(procs).persistent_workers);
  EXPECT_EQ(execution_spec_of(procs).walker_timeout_s, 30.0);
  const auto mpi = load_swarm_config(
      write(swarm + kEngine + "execution:\n  backend: mpi\n  heartbeat_timeout: 20\n"));
  EXPECT_EQ(execution_spec_of(mpi).backend, ExecutionBackend::Mpi);
  EXPECT_EQ(execution_spec_of(mpi).scheduler.heartbeat_timeout_s, 20.0);
  EXPECT_EQ(local.result_relevant_json(), mpi.result_relevant_json());

  const std::string arrays = error_of(swarm + kEngine + "execution:\n  backend: slurm\n");
  EXPECT_NE(arrays.find("execution.backend: a swarm does not run on slurm arrays"),
            std::string::npos)
      << arrays;
  const std::string devices = error_of(swarm + kEngine + "execution:\n  devices: [0]\n");
  EXPECT_NE(devices.find("execution.devices: a swarm's trials run on pathgennie.devices"),
            std::string::npos)
      << devices;
  const std::string other = error_of(swarm + kEngine + "execution:\n  walkers_per_task: 2\n");
  EXPECT_NE(other.find("execution.walkers_per_task: is not a swarm key"), std::string::npos)
      << other;
  // The campaign table's cross-field rules hold in a swarm too.
  const std::string both =
      error_of(swarm + kEngine + "execution:\n  backend: mpi\n  persistent_workers: true\n");
  EXPECT_NE(both.find("execution.persistent_workers"), std::string::npos) << both;
}

TEST(CycleRecord, RoundTripsThroughJson) {
  store::CycleRecord r;
  r.chain = 1;
  r.cycle = 7;
  r.trial_metrics = {0.5, std::numeric_limits<double>::quiet_NaN()};
  r.probabilities = {1.0, 0.0};
  r.chosen = 0;
  r.entropy = 0.0;
  r.tau2_metric = 0.75;
  r.outcome = store::CycleOutcome::Trial;
  r.anchor = core::FrameKey{3, 0, 0};
  r.anchor_metric = 0.5;
  r.anchor_cvs = {1.0, 2.0};
  r.reference = {0.0, 0.0};
  r.start_cvs = {-1.0, 1.0};
  r.path_steps = 40;
  r.converged = true;
  r.wall_s = 0.01;
  const auto back = store::cycle_record_from_json(store::to_json(r));
  EXPECT_EQ(store::to_json(back), store::to_json(r));
  EXPECT_TRUE(std::isnan(back.trial_metrics[1]));
  EXPECT_EQ(back.anchor, r.anchor);
  EXPECT_EQ(back.outcome, store::CycleOutcome::Trial);
  nlohmann::json broken = store::to_json(r);
  broken.erase("outcome");
  EXPECT_THROW((void)store::cycle_record_from_json(broken), core::InputError);
}

// PathGennie's Python blocks and openmm: block (docs/swarm.md, "From a PathGennie input.yaml").
TEST_F(SwarmConfigTest, PathgennieBlocksAreReadAsPathgennieWritesThem) {
  std::ofstream(dir_ / "cvs.py") << "def d(coords, box):\n    return [0.0]\n";
  std::ofstream(dir_ / "system.py") << "simulation = None\n";
  const std::string pdb = std::string(TRAILS_SOURCE_DIR) + "/examples/swarm-ion-pair/ion-pair.pdb";
  const auto c = load_swarm_config(
      write("pathgennie:\n  tau1_steps: 2\n  tau2_steps: 2\n  max_trial: 2\n  max_cycle: 2\n"
            "projection:\n  module: cvs\n  function: d\n  box: 25.0\n  periodic: [true]\n"
            "convergence:\n  module: cvs.py\n  function: d\n  cutoff: {a: [1, 2]}\n"
            "  min_cycles: 3\nopenmm:\n  module: system\n  structure: " +
            pdb + "\n  platform: Reference\n  precision: double\n"));
  ASSERT_TRUE(c.swarm.projection.has_value());
  EXPECT_EQ(c.swarm.projection->module, dir_ / "cvs.py");
  EXPECT_EQ(c.swarm.projection->function, "d");
  EXPECT_EQ(c.swarm.projection->kwargs, nlohmann::json({{"box", 25.0}}));
  ASSERT_EQ(c.swarm.projection_periods.size(), 1U);
  EXPECT_DOUBLE_EQ(c.swarm.projection_periods[0], 2.0 * 3.141592653589793);
  ASSERT_TRUE(c.swarm.convergence_function.has_value());
  EXPECT_EQ(c.swarm.convergence_function->kwargs,
            nlohmann::json::parse(R"({"cutoff": {"a": [1.0, 2.0]}})"));
  EXPECT_EQ(c.swarm.min_cycles, 3);  // a declarative key beside the function
  EXPECT_EQ(c.md.engine.md_engine, "openmm");
  EXPECT_EQ(c.md.engine.openmm.platform_name, "Reference");
  EXPECT_EQ(c.md.system.system_file, dir_ / "system.py");
  EXPECT_EQ(c.md.system.conf_file, fs::path(pdb));
  EXPECT_NE(c.swarm.projection->location.find("input.yaml:6:1: projection.function"),
            std::string::npos);
}

TEST_F(SwarmConfigTest, PathgennieBlocksRefuseConflicts) {
  std::ofstream(dir_ / "cvs.py") << "def d(coords):\n    return [0.0]\n";
  const std::string base =
      "pathgennie:\n  tau1_steps: 2\n  tau2_steps: 2\n  max_trial: 2\n"
      "  max_cycle: 2\nprojection: {module: cvs, function: d}\n";
  const std::string pdb = std::string(TRAILS_SOURCE_DIR) + "/examples/swarm-ion-pair/ion-pair.pdb";
  EXPECT_NE(error_of(base + kEngine).find("the built-in engine's state is a point"),
            std::string::npos);
  const std::string openmm =
      "openmm:\n  structure: " + pdb + "\n  forcefield: [amber14-all.xml, amber14/tip3p.xml]\n";
  const std::string twice = error_of(base + openmm + "system:\n  conf_file: " + pdb + "\n");
  EXPECT_NE(twice.find("openmm.structure: also given as system.conf_file"), std::string::npos)
      << twice;
  EXPECT_NE(error_of(base + openmm + "cvs:\n  - {name: d, kind: distance, atoms: [0, 1]}\n")
                .find("the CVs are given twice"),
            std::string::npos);
  EXPECT_NE(error_of(base + openmm + "  precision: quad\n").find("openmm.precision:"),
            std::string::npos);
  EXPECT_NE(error_of(base + openmm + "engine:\n  md_engine: builtin\n")
                .find("engine.md_engine is builtin"),
            std::string::npos);
}

// projection: {model, iteration} names a stored learned model (docs/swarm.md, "A learned model
// as the CV"): the run directory resolved against the config's folder, the iteration optional;
// the pinned iteration stays out of the digest (the resolved model joins it when the run opens).
TEST_F(SwarmConfigTest, ProjectionModelNamesAStoredLearnedModel) {
  fs::create_directories(dir_ / "runs" / "mb");
  const std::string base =
      "pathgennie:\n  mode: escape\n  tau1_steps: 2\n  tau2_steps: 2\n  max_trial: 4\n"
      "  max_cycle: 5\n" +
      kEngine;
  const auto a = load_swarm_config(write(base + "projection:\n  model: runs/mb\n"));
  ASSERT_TRUE(a.swarm.learned_projection.has_value());
  EXPECT_EQ(a.swarm.learned_projection->run_dir, dir_ / "runs" / "mb");
  EXPECT_FALSE(a.swarm.learned_projection->iteration.has_value());
  EXPECT_FALSE(a.swarm.projection.has_value());
  EXPECT_NE(a.swarm.learned_projection->location.find("input.yaml:"), std::string::npos);
  const auto b = load_swarm_config(write(base + "projection:\n  model: runs/mb\n  iteration: 3\n"));
  EXPECT_EQ(b.swarm.learned_projection->iteration, std::int64_t{3});
  EXPECT_EQ(a.result_relevant_json(), b.result_relevant_json());

  std::string text = error_of(base + "projection:\n  model: runs/none\n  lag: 2\n");
  EXPECT_NE(text.find("projection.model"), std::string::npos) << text;
  EXPECT_NE(text.find("projection.lag: unknown key"), std::string::npos) << text;
  text = error_of(base + "projection:\n  model: runs/mb\n  iteration: -1\n");
  EXPECT_NE(text.find("projection.iteration"), std::string::npos) << text;
  text = error_of(base +
                  "projection:\n  model: runs/mb\ncvs:\n  - {name: x, kind: distance, "
                  "atoms: [0, 1]}\n");
  EXPECT_NE(text.find("the CVs are given twice"), std::string::npos) << text;
}

}  // namespace
}  // namespace trails::config
