// space_mode pca | tica: the learned-space keys load into CampaignConfig::learned, enter the
// result digest only in learned mode, and the learned-mode cross-checks fire.
#include <gtest/gtest.h>

#include "config_test_support.h"

namespace trails::config {
namespace {

using testing::good_config;
using testing::load_error;
using testing::TempDir;

std::string learned(const std::string& extra) {
  std::string y = good_config();
  y.replace(y.find("n_bins: [30, 30]"), 16, "n_bins: [25]");
  return y + extra;
}

TEST(LearnedSpaceConfig, KeysLoadIntoTheTypedConfig) {
  TempDir dir;
  const CampaignConfig c = load_campaign_config(dir.write(
      "c.yaml", learned("space_mode: tica\nretrain_policy: vamp_adaptive\nretrain_freq: 4\n"
                        "vamp_retrain_tol: 0.2\nretrain_min_interval: 2\nretrain_max_interval: 7\n"
                        "aggregate_memory: false\nmax_adaptive_memory_frames: 1000\n"
                        "adaptive_model:\n  lagtime: 3\n  latent_dim: 1\n")));
  EXPECT_TRUE(c.learned_space());
  EXPECT_EQ(c.space_mode, "tica");
  EXPECT_EQ(c.cv_dimension(), 1);
  EXPECT_EQ(c.learned.retrain_policy, RetrainPolicyKind::VampAdaptive);
  EXPECT_EQ(c.learned.retrain_freq, 4);
  EXPECT_EQ(c.learned.vamp_retrain_tol, 0.2);
  EXPECT_EQ(c.learned.retrain_min_interval, 2);
  EXPECT_EQ(c.learned.retrain_max_interval, 7);
  EXPECT_FALSE(c.learned.aggregate_memory);
  EXPECT_EQ(c.learned.max_adaptive_memory_frames, 1000);
  EXPECT_EQ(c.learned.lagtime, 3);
  const auto j = c.result_relevant_json();
  EXPECT_EQ(j.at("adaptive_model").at("lagtime"), 3);
  EXPECT_EQ(j.at("retrain_policy"), "vamp_adaptive");
}

TEST(LearnedSpaceConfig, FixedModeDigestHasNoLearnedKeys) {
  TempDir dir;
  const CampaignConfig c = load_campaign_config(dir.write("c.yaml", good_config()));
  EXPECT_FALSE(c.learned_space());
  EXPECT_FALSE(c.result_relevant_json().contains("retrain_policy"));
  EXPECT_FALSE(c.result_relevant_json().contains("adaptive_model"));
}

TEST(LearnedSpaceConfig, CrossChecks) {
  TempDir dir;
  EXPECT_NE(load_error(dir.write("a.yaml", learned("space_mode: pca\nadaptive_model:\n"
                                                   "  latent_dim: 2\n")))
                .find("adaptive_model.latent_dim: 2 differs from the 1 axis of n_bins"),
            std::string::npos);
  // 100 steps / stride 10 = 10 frames per segment: lag 10 gives no pairs.
  EXPECT_NE(load_error(dir.write("b.yaml", learned("space_mode: tica\nadaptive_model:\n"
                                                   "  lagtime: 10\n")))
                .find("adaptive_model.lagtime: 10 frames is not shorter than a walker segment"),
            std::string::npos);
  // The same lag is fine for PCA (which does not need pairs).
  EXPECT_NO_THROW(load_campaign_config(
      dir.write("c.yaml", learned("space_mode: pca\nadaptive_model:\n  lagtime: 10\n"))));
}

}  // namespace
}  // namespace trails::config
