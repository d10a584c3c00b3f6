// A neural learned space in the campaign (docs/cvs.md, "Neural learned spaces"): the network is
// committed with the iteration in which it takes effect (a retrain decided at 3 applies at 4),
// and a campaign stopped with a retrain pending, then resumed, commits exactly what an
// uninterrupted campaign commits (CVs, spawns, element state). The SIGKILL variants are in
// tests/scripts/learned_neural.sh.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "campaign_runs.h"
#include "trails/store/run_store.h"

namespace trails {
namespace {

namespace fs = std::filesystem;

config::CampaignConfig neural_config(const fs::path& dir, const std::string& mode) {
  fs::create_directories(dir);
  const fs::path file = dir / "config.yaml";
  std::ofstream(file) << "outdir: run\nrandom_seed: 4\nn_bins: [20]\nspace_mode: " << mode
                      << "\nretrain_freq: 3\nmax_adaptive_memory_frames: 300\n"
                         "adaptive_model:\n  lagtime: 2\n  epochs: 3\n"
                         "  encoder_hidden_dims: [8]\n"
                         "system:\n  start: [-1.0, 0.0]\n"
                         "engine:\n  md_engine: builtin\n  potential: three_well\n"
                         "  integrator: overdamped\n  kT: 1.0\n  dt: 0.001\n"
                         "spawning:\n  walker: 4\n  step: 100\n  stride: 10\n  max_workers: 2\n";
  return config::load_campaign_config(file);
}

class NeuralCampaign : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("trails-neural-campaign-" +
             std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(NeuralCampaign, StoppedWithARetrainPendingThenResumedEqualsUninterrupted) {
  const auto straight = neural_config(root_ / "straight", "vampnet");
  (void)campaign::test::run(straight, 7);
  const auto stopped = neural_config(root_ / "stopped", "vampnet");
  (void)campaign::test::run(stopped, 4);  // iteration 3 decided a retrain: pending in the ledger
  (void)campaign::test::run(stopped, 7, true);

  const auto a = store::RunStore::open(straight.outdir, store::RunStore::Mode::ReadOnly);
  const auto b = store::RunStore::open(stopped.outdir, store::RunStore::Mode::ReadOnly);
  const auto ra = a.load_iterations(), rb = b.load_iterations();
  ASSERT_EQ(ra.size(), 7u);
  ASSERT_EQ(rb.size(), 7u);
  for (std::size_t i = 0; i < ra.size(); ++i) {
    EXPECT_EQ(ra[i].cvs, rb[i].cvs) << "iteration " << i;
    auto sa = ra[i].state, sb = rb[i].state;
    sa.erase("target_iterations");  // what each invocation asked for: 7, or 4 then 7
    sb.erase("target_iterations");
    EXPECT_EQ(sa, sb) << "iteration " << i;
    ASSERT_EQ(ra[i].spawns.size(), rb[i].spawns.size());
    for (std::size_t s = 0; s < ra[i].spawns.size(); ++s) {
      EXPECT_EQ(ra[i].spawns[s].source, rb[i].spawns[s].source);
    }
  }
  // The networks: at 0 (the first, at once) and 4 (decided at 3, trained during 4's MD).
  for (std::int64_t it = 0; it < 7; ++it) {
    const auto m = a.load_element_state(it, "space_model", 1);
    EXPECT_EQ(m.has_value(), it == 0 || it == 4) << "iteration " << it;
    if (m) {
      EXPECT_EQ(m->at("applied_at"), it);
      EXPECT_EQ(m->at("trained_at"), it == 0 ? 0 : 3);
      EXPECT_EQ(m->at("training").at("epochs_run"), 3);
    }
  }
  EXPECT_EQ(ra[3].state.at("space").at("pending_training"), 3);
  EXPECT_EQ(ra[3].state.at("space").at("space_version"), 1);
  EXPECT_EQ(ra[4].state.at("space").at("space_version"), 2);
}

}  // namespace
}  // namespace trails
