// result_relevant_json / effective_json / keys_changed / digest_of.
#include <gtest/gtest.h>

#include "config_test_support.h"
#include "trails/config/config_digest.h"
#include "trails/config/schema.h"

namespace trails::config {
namespace {

using json = nlohmann::json;
using testing::good_config;
using testing::TempDir;

CampaignConfig load_text(const std::string& text) {
  TempDir dir;
  return load_campaign_config(dir.write("c.yaml", text));
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(CampaignJson, DigestIsSixteenHexDigitsAndStable) {
  // FNV-1a 64 reference values: empty input is the offset basis; "a" is a published vector.
  EXPECT_EQ(digest_of(json("")), digest_of(json("")));
  const std::string d = digest_of(json::object());  // dump() == "{}"
  EXPECT_EQ(d.size(), 16u);
  EXPECT_EQ(d.find_first_not_of("0123456789abcdef"), std::string::npos);
  // dump() of the string "a" is "\"a\"": FNV-1a 64 of those three bytes.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : std::string("\"a\"")) h = (h ^ c) * 0x100000001b3ULL;
  char want[17];
  std::snprintf(want, sizeof want, "%016llx", static_cast<unsigned long long>(h));
  EXPECT_EQ(digest_of(json("a")), want);
  EXPECT_EQ(digest_of(json::parse(R"({"b": 1, "a": [1, 2]})")),
            digest_of(json::parse(R"({"a": [1, 2], "b": 1})")));  // key order is canonical
}

TEST(CampaignJson, SameConfigSameDigestAcrossLoadsAndDirectories) {
  const CampaignConfig a = load_text(good_config());
  const CampaignConfig b = load_text(good_config());  // a different temp directory
  EXPECT_EQ(a.result_relevant_json(), b.result_relevant_json());
  EXPECT_EQ(digest_of(a.result_relevant_json()), digest_of(b.result_relevant_json()));
  EXPECT_NE(a.config_file, b.config_file);
}

TEST(CampaignJson, ResultIrrelevantKeysDoNotChangeTheDigest) {
  const CampaignConfig base = load_text(good_config());
  std::string text = replaced(good_config(), "outdir: out", "outdir: elsewhere");
  text = replaced(text, "  dt: 0.0001",
                  "  dt: 0.0001\n  synthetic_cost_ms: 25\n  synthetic_startup_ms: 3");
  text += "  max_workers: 1\niterations: 99\ncheckpoint_freq: 5\n";
  const CampaignConfig other = load_text(text);
  EXPECT_EQ(digest_of(base.result_relevant_json()), digest_of(other.result_relevant_json()));
  EXPECT_TRUE(keys_changed(base.result_relevant_json(), other.result_relevant_json()).empty());
  const json rr = base.result_relevant_json();
  for (const char* key : {"outdir", "iterations", "checkpoint_freq", "config_file"}) {
    EXPECT_FALSE(rr.contains(key)) << key;
  }
  EXPECT_FALSE(rr["spawning"].contains("max_workers"));
  EXPECT_FALSE(rr["engine"].contains("synthetic_cost_ms"));
  EXPECT_FALSE(rr["engine"].contains("synthetic_startup_ms"));
  // ...but the effective configuration records them.
  EXPECT_EQ(keys_changed(base.effective_json(), other.effective_json()),
            (std::vector<std::string>{"checkpoint_freq", "config_file", "engine.synthetic_cost_ms",
                                      "engine.synthetic_startup_ms", "iterations", "outdir",
                                      "spawning.max_workers"}));
}

TEST(CampaignJson, ResultRelevantChangesAreListedSorted) {
  const CampaignConfig base = load_text(good_config());
  std::string text = replaced(good_config(), "  walker: 4", "  walker: 5");
  text = replaced(text, "kT: 15.0", "kT: 14.0");
  text += "random_seed: 43\n";
  const CampaignConfig other = load_text(text);
  const auto changed = keys_changed(base.result_relevant_json(), other.result_relevant_json());
  // engine.seed follows random_seed when unset: the effective engine seed changed too.
  EXPECT_EQ(changed, (std::vector<std::string>{"engine.kT", "engine.seed", "random_seed",
                                               "spawning.walker"}));
  EXPECT_NE(digest_of(base.result_relevant_json()), digest_of(other.result_relevant_json()));
}

TEST(CampaignJson, EngineSeedEqualToRandomSeedIsTheSameRun) {
  const CampaignConfig unset = load_text(good_config());
  const CampaignConfig explicit_seed =
      load_text(replaced(good_config(), "  dt: 0.0001", "  dt: 0.0001\n  seed: 42"));
  EXPECT_EQ(digest_of(unset.result_relevant_json()),
            digest_of(explicit_seed.result_relevant_json()));
}

TEST(CampaignJson, IntegerAndDecimalSpellingsAreTheSameValue) {
  const CampaignConfig a = load_text(good_config());
  const CampaignConfig b = load_text(replaced(good_config(), "kT: 15.0", "kT: 15"));
  EXPECT_EQ(digest_of(a.result_relevant_json()), digest_of(b.result_relevant_json()));
}

TEST(CampaignJson, KeysChangedReportsAddedRemovedAndNested) {
  const json a = json::parse(R"({"x": 1, "blk": {"p": [1, 2], "q": "s"}, "gone": true})");
  const json b = json::parse(R"({"x": 1, "blk": {"p": [1, 3], "r": null}, "new": 0})");
  EXPECT_EQ(keys_changed(a, b),
            (std::vector<std::string>{"blk.p", "blk.q", "blk.r", "gone", "new"}));
  EXPECT_TRUE(keys_changed(a, a).empty());
  EXPECT_EQ(keys_changed(json::parse(R"({"k": {"a": 1}})"), json::parse(R"({"k": 2})")),
            (std::vector<std::string>{"k"}));
}

TEST(CampaignJson, EffectiveJsonHasEveryKeyOfTheTable) {
  const json e = load_text(good_config()).effective_json();
  for (const auto& key : detail::all_keys()) {
    if (key.block == "spawning" && key.name == "n_bins") continue;  // promoted to top level
    const json& scope = key.block.empty() ? e : e.at(std::string(key.block));
    EXPECT_TRUE(scope.contains(std::string(key.name))) << key.dotted();
  }
  EXPECT_EQ(e["engine"]["md_engine"], "builtin");
  EXPECT_EQ(e["engine"]["temperature"], 300.0);
  EXPECT_EQ(e["msm"]["enabled"], false);
  EXPECT_TRUE(e["iterations"].is_null());
  EXPECT_TRUE(e["spawning"]["history_window"].is_null());
  EXPECT_EQ(e["system"]["start"], json::parse("[[-0.558, 1.442]]"));
}

// output.position_precision (docs/configuration.md): 0.001 nm by default for atoms in nm, exact
// for a point system; only a value other than the engine's default enters the digest, so a run
// made before the key keeps its digest.
std::string openmm_config() {
  return replaced(good_config(),
                  "  start: [-0.558, 1.442]\nengine:\n  md_engine: builtin\n  potential: "
                  "muller_brown\n  kT: 15.0\n  dt: 0.0001\n",
                  "  conf_file: " TRAILS_SOURCE_DIR
                  "/examples/alanine-dipeptide/alanine-dipeptide.pdb\n  forcefield: "
                  "[amber14-all.xml]\nengine:\n  md_engine: "
                  "openmm\n  dt: 0.002\n");
}

TEST(CampaignJson, PositionPrecisionDefaultsByEngineAndEntersTheDigestOnlyWhenChanged) {
  const CampaignConfig builtin = load_text(good_config());
  EXPECT_EQ(builtin.output.position_precision, 0.0);
  const CampaignConfig openmm = load_text(openmm_config());
  EXPECT_EQ(openmm.output.position_precision, 0.001);
  for (const auto* c : {&builtin, &openmm}) {
    EXPECT_FALSE(c->result_relevant_json().contains("output")) << c->engine.md_engine;
    EXPECT_TRUE(c->effective_json()["output"].contains("position_precision"));
  }
  const CampaignConfig same = load_text(openmm_config() + "output:\n  position_precision: 0.001\n");
  EXPECT_EQ(same.result_relevant_json(), openmm.result_relevant_json());
  const CampaignConfig exact =
      load_text(openmm_config() + "output:\n  position_precision: exact\n");
  EXPECT_EQ(exact.output.position_precision, 0.0);
  EXPECT_EQ(exact.result_relevant_json()["output"]["position_precision"], "exact");
  EXPECT_EQ(keys_changed(openmm.result_relevant_json(), exact.result_relevant_json()),
            std::vector<std::string>{"output.position_precision"});
  const CampaignConfig grid = load_text(good_config() + "output:\n  position_precision: 0.01\n");
  EXPECT_EQ(grid.output.position_precision, 0.01);
  EXPECT_EQ(grid.result_relevant_json()["output"]["position_precision"], 0.01);
  const CampaignConfig f32 =
      load_text(openmm_config() + "  history_window: 0\noutput:\n  precision: float32\n");
  EXPECT_EQ(f32.output.position_precision, 0.0);
}

TEST(CampaignJson, PositionPrecisionRefusesOtherWordsAndZero) {
  TempDir dir;
  for (const char* bad : {"fine", "0", "-0.001"}) {
    const std::string m = testing::load_error(
        dir.write("c.yaml", good_config() + "output:\n  position_precision: " + bad + "\n"));
    EXPECT_NE(m.find("output.position_precision"), std::string::npos) << bad << ": " << m;
  }
  const std::string both = testing::load_error(dir.write(
      "c.yaml", good_config() +
                    "  history_window: 0\noutput:\n  precision: float32\n  position_precision: "
                    "0.001\n"));
  EXPECT_NE(both.find("set one of them"), std::string::npos) << both;
}

}  // namespace
}  // namespace trails::config
