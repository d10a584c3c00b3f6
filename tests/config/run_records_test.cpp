// The JSON records of runs (result_relevant_json, whose digest guards --resume, and
// effective_json, the ledger's copy) of configurations covering every engine module, the learned
// space's bound rows and the swarm's MD system, pinned to what the build before the engine
// modules and bound rows wrote: the key table may be reshaped, but a run made before must still
// resume (docs/architecture.md, "Refactoring and exports").
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "config_test_support.h"
#include "trails/config/config_digest.h"
#include "trails/config/engines/engine_module.h"
#include "trails/config/swarm_config.h"

namespace trails::config {
namespace {

using testing::TempDir;

struct Pinned {
  const char* name;
  const char* yaml;
  const char* result_relevant;  // digest of the record, the test folder written as DIR
  const char* effective;
};

// Recorded with the build before this layout (commit 8a7af2a).
const std::vector<Pinned>& pinned_records() {
  static const std::vector<Pinned> records = {
      {"builtin_fixed",
       R"(outdir: out
n_bins: [30, 30]
min_values: [-1.5, -0.5]
max_values: [1.2, 2.0]
system:
  start: [-0.558, 1.442]
engine:
  md_engine: builtin
  potential: muller_brown
  kT: 15.0
  dt: 0.0001
  integrator: langevin
  friction: 2.0
  synthetic_cost_ms: 1.5
spawning:
  walker: 4
  step: 100
  stride: 10
retrain_min_interval: 5
iterations: 9
)",
       "25d61b5b913dee2e", "abc7b6b6305e1136"},
      {"builtin_tica",
       R"(outdir: out
n_bins: [30, 30]
min_values: [-1.5, -0.5]
max_values: [1.2, 2.0]
system:
  start: [-0.558, 1.442]
engine:
  md_engine: builtin
  potential: muller_brown
  kT: 15.0
  dt: 0.0001
spawning:
  walker: 4
  step: 100
  stride: 10
space_mode: tica
retrain_policy: vamp_adaptive
retrain_min_interval: 3
retrain_max_interval: 7
vamp_retrain_tol: 0.2
max_adaptive_memory_frames: 900
feature_selection:
  enabled: true
  lagtime: 3
  max_features: 4
  min_gain: 0.001
adaptive_model:
  lagtime: 3
)",
       "53f2ee64272ebbbc", "aab6b9d7c24c2616"},
      {"builtin_spib",
       R"(outdir: out
n_bins: [30, 30]
min_values: [-1.5, -0.5]
max_values: [1.2, 2.0]
system:
  start: [-0.558, 1.442]
engine:
  md_engine: builtin
  potential: muller_brown
  kT: 15.0
  dt: 0.0001
spawning:
  walker: 4
  step: 100
  stride: 10
space_mode: spib
save_features: true
adaptive_model:
  lagtime: 3
  encoder_hidden_dims: [64, 32]
  dropout_rate: 0.0
  learning_rate: 0.01
  epochs: 7
  batch_size: 128
  spib_n_states: 4
  spib_beta: 0.01
  spib_refine_rounds: 0
)",
       "290459fe5235e1ab", "710c3b87e73c64b3"},
      {"command_pca",
       R"(outdir: out
n_bins: [30, 30]
min_values: [-1.5, -0.5]
max_values: [1.2, 2.0]
system:
  start: [-0.558, 1.442]
engine:
  md_engine: command
  command: [/bin/true]
  command_timeout: 30
  dt: 0.0001
spawning:
  walker: 4
  step: 100
  stride: 10
space_mode: pca
)",
       "2aa01d4a71f1b948", "837fe382064456e9"},
      {"openmm_tica",
       R"(outdir: out
n_bins: [10, 10]
min_values: [0, 0]
max_values: [1, 1]
spawning:
  walker: 2
  step: 100
  stride: 10
space_mode: tica
adaptive_feature_type: phi_psi
adaptive_angle_encoding: sincos
engine:
  md_engine: openmm
  platform_name: Reference
  reproducibility: bitwise
  equilibrate: true
  dt: 0.001
system:
  conf_file: s.pdb
  forcefield: [amber14-all.xml]
  feature_selection: all
)",
       "63ab6961aaab3d46", "766119d07d4bb2fa"},
      {"gromacs",
       R"(outdir: out
n_bins: [10, 10]
min_values: [0, 0]
max_values: [1, 1]
spawning:
  walker: 2
  step: 100
  stride: 10
engine:
  md_engine: gromacs
  temperature: 310
  npt: true
  gromacs_executable: gmx_mpi
  gromacs_mdrun_ntomp: 2
  gromacs_mdrun_nb: gpu
  gromacs_mdrun_extra_args: [-v]
  gromacs_grompp_maxwarn: 1
system:
  conf_file: w.gro
  top_file: w.top
)",
       "bc00f6f07e4470e6", "63e010c0cf4be246"},
      {"amber",
       R"(outdir: out
n_bins: [10, 10]
min_values: [0, 0]
max_values: [1, 1]
spawning:
  walker: 2
  step: 100
  stride: 10
engine:
  md_engine: amber
  amber_executable: sander
  amber_extra_args: [-O]
  pressure: 2.5
system:
  conf_file: p.inpcrd
  top_file: p.prmtop
)",
       "3d42666cf213a3d6", "e3550b2a992e4b8c"},
      {"swarm_builtin",
       R"(workdir: run
pathgennie:
  mode: target
  target_projection: [0.623, 0.028]
  max_trial: 4
  tau1_steps: 20
  tau2_steps: 40
  max_cycle: 5
  seed: 1
convergence:
  distance_to_target: 0.1
system:
  start: [-0.558, 1.442]
engine:
  md_engine: builtin
  potential: muller_brown
  integrator: langevin
  kT: 15.0
  dt: 0.0005
  friction: 10.0
)",
       "32b11e03d424e940", "c4f3ca12cb56f898"},
      {"swarm_gromacs",
       R"(workdir: run
pathgennie:
  mode: target
  target_projection: [1.0]
  max_trial: 4
  tau1_steps: 20
  tau2_steps: 40
  max_cycle: 5
  seed: 1
  temperature: 320
engine:
  md_engine: gromacs
  gromacs_mdrun_ntomp: 1
system:
  conf_file: w.gro
  top_file: w.top
cvs:
  - {name: d, type: distance, atoms: [1, 2]}
)",
       "bd17ea2dcd68c248", "fe804f6b4490b88c"},
  };
  return records;
}

// The record's digest with the test's folder written as DIR, so it does not depend on where the
// test runs.
std::string digest_in(const nlohmann::json& record, const std::string& dir) {
  std::string text = record.dump();
  for (std::size_t at = text.find(dir); at != std::string::npos; at = text.find(dir, at)) {
    text.replace(at, dir.size(), "DIR");
  }
  return digest_of(nlohmann::json(text));
}

TEST(RunRecords, AreThoseOfEarlierRuns) {
  TempDir dir;
  for (const char* empty : {"s.pdb", "w.gro", "w.top", "p.prmtop", "p.inpcrd"}) {
    dir.write(empty, "");
  }
  const std::string folder = dir.path().string();
  for (const Pinned& p : pinned_records()) {
    const auto file = dir.write(std::string(p.name) + ".yaml", p.yaml);
    nlohmann::json relevant, effective;
    if (is_swarm_config(file)) {
      const SwarmConfig c = load_swarm_config(file);
      relevant = c.result_relevant_json();
      effective = c.effective_json();
    } else {
      const CampaignConfig c = load_campaign_config(file);
      relevant = c.result_relevant_json();
      effective = c.effective_json();
    }
    EXPECT_EQ(digest_in(relevant, folder), p.result_relevant) << p.name << ": " << relevant.dump();
    EXPECT_EQ(digest_in(effective, folder), p.effective) << p.name << ": " << effective.dump();
  }
}

// The learned space's keys are bound rows (key_row.h): built and written back by the one loop
// of each, so a key is written once, in its row.
TEST(RunRecords, TheLearnedSpaceKeysAreBoundRows) {
  for (const char* key :
       {"retrain_policy", "retrain_freq", "vamp_retrain_tol", "retrain_min_interval",
        "retrain_max_interval", "aggregate_memory", "max_adaptive_memory_frames", "save_features",
        "adaptive_feature_type", "adaptive_angle_encoding", "space_mode", "min_values"}) {
    const detail::KeySpec* row = detail::find_key("", key);
    ASSERT_NE(row, nullptr) << key;
    EXPECT_TRUE(row->fill && row->read) << key;
  }
  for (const auto& row : detail::all_keys()) {
    if ((row.block == "feature_selection" || row.block == "adaptive_model") &&
        row.name != "latent_dim") {  // len(n_bins), not a member
      EXPECT_TRUE(row.fill && row.read) << row.dotted();
    }
  }
  TempDir dir;
  const CampaignConfig c = load_campaign_config(
      dir.write("c.yaml", testing::good_config() + "space_mode: pca\nretrain_min_interval: 4\n"));
  EXPECT_EQ(c.learned.retrain_min_interval, 4);
  EXPECT_EQ(c.result_relevant_json()["retrain_min_interval"], 4);
}

// Every key of the engine block is an engine module's bound row or a shared bound row; only
// engine.gpu_ids, Trails-MD's name of execution.devices, is built with that key.
TEST(RunRecords, EveryEngineKeyIsABoundRow) {
  for (const auto& row : detail::all_keys()) {
    if (row.block != "engine" || row.name == "gpu_ids") continue;
    EXPECT_TRUE(row.fill_md && row.read_md) << row.dotted();
  }
  // A swarm holds the MD system both drivers read, not a campaign's configuration.
  static_assert(std::is_same_v<decltype(SwarmConfig::md), MdSystemConfig>);
  static_assert(std::is_base_of_v<MdSystemConfig, CampaignConfig>);
}

}  // namespace
}  // namespace trails::config
