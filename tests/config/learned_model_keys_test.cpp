// The neural spaces' adaptive_model keys (docs/cvs.md "Learned spaces"): read with Trails-MD's
// defaults and meanings, result-relevant only for the space that reads them, and bad values
// refused with the key named (exit 2).
#include <gtest/gtest.h>

#include "config_test_support.h"
#include "trails/config/config_digest.h"

namespace trails::config {
namespace {

using testing::good_config;
using testing::load_error;
using testing::TempDir;

std::string neural(const std::string& mode, const std::string& model_block = "") {
  return good_config() + "space_mode: " + mode + "\n" +
         (model_block.empty() ? "" : "adaptive_model:\n" + model_block);
}

std::string with_n_bins(std::string text, const std::string& n_bins) {
  const std::string from = "n_bins: [30, 30]";
  text.replace(text.find(from), from.size(), "n_bins: " + n_bins);
  return text;
}

TEST(LearnedModelKeys, DefaultsAreTrailsMds) {
  TempDir dir;
  const CampaignConfig c = load_campaign_config(dir.write("c.yaml", neural("tvae")));
  const LearnedModelConfig& m = c.learned.model;
  EXPECT_EQ(m.encoder_hidden_dims, (std::vector<int>{256, 128}));
  EXPECT_EQ(m.decoder_hidden_dims, (std::vector<int>{128, 256}));
  EXPECT_EQ(m.deep_tica_hidden_dims, (std::vector<int>{256, 128}));
  EXPECT_EQ(m.dropout_rate, 0.1);
  EXPECT_EQ(m.learning_rate, 5e-4);
  EXPECT_EQ(m.epochs, 50);
  EXPECT_FALSE(m.batch_size.has_value());
  EXPECT_EQ(m.tvae_beta, 1.0);
  EXPECT_EQ(m.spib_n_states, 10);
  EXPECT_EQ(m.spib_beta, 1e-3);
  EXPECT_EQ(m.spib_refine_rounds, 5);
  EXPECT_TRUE(c.notes.empty());
}

TEST(LearnedModelKeys, EveryKeyIsRead) {
  TempDir dir;
  const CampaignConfig c = load_campaign_config(
      dir.write("c.yaml", neural("spib",
                                 "  lagtime: 3\n  latent_dim: 2\n  encoder_hidden_dims: [64, 32]\n"
                                 "  dropout_rate: 0.0\n  learning_rate: 0.01\n  epochs: 7\n"
                                 "  batch_size: 128\n  spib_n_states: 4\n  spib_beta: 0.01\n"
                                 "  spib_refine_rounds: 0\n")));
  const LearnedModelConfig& m = c.learned.model;
  EXPECT_EQ(c.space_mode, "spib");
  EXPECT_EQ(c.learned.lagtime, 3);
  EXPECT_EQ(m.encoder_hidden_dims, (std::vector<int>{64, 32}));
  EXPECT_EQ(m.dropout_rate, 0.0);
  EXPECT_EQ(m.learning_rate, 0.01);
  EXPECT_EQ(m.epochs, 7);
  EXPECT_EQ(m.batch_size, 128);
  EXPECT_EQ(m.spib_n_states, 4);
  EXPECT_EQ(m.spib_beta, 0.01);
  EXPECT_EQ(m.spib_refine_rounds, 0);
  EXPECT_TRUE(c.notes.empty()) << c.notes.front();
  // Deep-TICA's own hidden dims; the encoder's are a note there (Trails-MD ignores them too).
  const CampaignConfig d = load_campaign_config(dir.write(
      "d.yaml",
      neural("deep-tica", "  deep_tica_hidden_dims: [16]\n  encoder_hidden_dims: [8]\n")));
  EXPECT_EQ(d.learned.model.deep_tica_hidden_dims, (std::vector<int>{16}));
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes.front().find("adaptive_model.encoder_hidden_dims: has no effect with "
                                 "space_mode: deep-tica"),
            std::string::npos)
      << d.notes.front();
}

TEST(LearnedModelKeys, OnlyTheKeysASpaceReadsAreResultRelevant) {
  TempDir dir;
  const auto digest = [&](const std::string& name, const std::string& text) {
    return digest_of(load_campaign_config(dir.write(name, text)).result_relevant_json());
  };
  // tvae_beta changes a tvae run, not a vampnet run; PCA/TICA digests carry no model keys.
  EXPECT_NE(digest("a.yaml", neural("tvae")),
            digest("b.yaml", neural("tvae", "  tvae_beta: 0.25\n")));
  EXPECT_EQ(digest("c.yaml", neural("vampnet")),
            digest("d.yaml", neural("vampnet", "  tvae_beta: 0.25\n")));
  const auto tica =
      load_campaign_config(dir.write("e.yaml", neural("tica"))).result_relevant_json();
  EXPECT_FALSE(tica["adaptive_model"].contains("epochs")) << tica.dump();
}

TEST(LearnedModelKeys, BadValuesNameTheirKey) {
  TempDir dir;
  struct Case {
    std::string block, expect;
  };
  const Case cases[] = {
      {"  dropout_rate: -0.1\n", "adaptive_model.dropout_rate: must be"},
      {"  epochs: 0\n", "adaptive_model.epochs: must be"},
      {"  encoder_hidden_dims: [64, 0]\n", "adaptive_model.encoder_hidden_dims"},
      {"  encoder_hidden_dims: [64, 1.5]\n", "adaptive_model.encoder_hidden_dims"},
      {"  encoder_hidden_dims: [64, -3]\n", "adaptive_model.encoder_hidden_dims"},
      {"  decoder_hidden_dims: [abc]\n", "adaptive_model.decoder_hidden_dims"},
      {"  learning_rate: 0\n", "adaptive_model.learning_rate: must be"},
      {"  batch_size: 1\n", "adaptive_model.batch_size"},
      {"  tvae_beta: 0\n", "adaptive_model.tvae_beta: must be"},
      {"  latent_dim: 3\n", "adaptive_model.latent_dim: 3 differs from the 2 axes of n_bins"},
  };
  for (const auto& c : cases) {
    const std::string m = load_error(dir.write("bad.yaml", neural("tvae", c.block)));
    EXPECT_NE(m.find(c.expect), std::string::npos) << c.block << " gave:\n" << m;
  }
  // A latent dimension larger than the built-in engine's coordinates, before any MD.
  const std::string three =
      load_error(dir.write("three.yaml", with_n_bins(neural("vampnet"), "[10, 10, 10]")));
  EXPECT_NE(three.find("n_bins: 3 axes ask for a 3-dimensional learned space (len(n_bins)), but "
                       "the built-in engine's features are its 2 coordinates"),
            std::string::npos)
      << three;
  // Lagged pairs must fit in a walker segment for every space that trains on them.
  const std::string lag = load_error(dir.write("lag.yaml", neural("spib", "  lagtime: 10\n")));
  EXPECT_NE(lag.find("adaptive_model.lagtime: 10 frames is not shorter than a walker segment "
                     "(10 frames = step / stride), so space_mode spib gets no time-lagged pairs"),
            std::string::npos)
      << lag;
  // deep-lda is Trails-MD's unfinished space: still refused.
  EXPECT_NE(load_error(dir.write("lda.yaml", neural("deep-lda"))).find("deep-lda is not supported"),
            std::string::npos);
}

}  // namespace
}  // namespace trails::config
