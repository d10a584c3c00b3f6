// The neural spaces inside SpaceStage (tvae | vampnet | spib | deep-tica): time-lagged pairs from
// the exact walker segments (fix:walker-segment-pairs), the iteration at which a retrain takes
// effect, bitwise resume with a pending retrain, reproducible weights, and the latent-dimension
// check.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "trails/core/error.h"
#include "trails/core/rng.h"
#include "trails/spaces/space_stage.h"

namespace trails::spaces {
namespace {

using Spans = std::vector<features::FrameHistory::WalkerSpan>;

// A 2-D double well along x (slow) with a fast harmonic y, one walker per span.
std::vector<double> walk(const Spans& spans, std::uint64_t seed) {
  std::vector<double> out;
  const double dt = 0.005;
  for (const auto& s : spans) {
    core::Rng rng = core::Rng::stream(seed, "neural-walk", static_cast<std::uint64_t>(s.walker));
    double x = s.walker % 2 ? 1.0 : -1.0, y = 0.0;
    for (std::int64_t f = 0; f < s.n_frames; ++f) {
      for (int k = 0; k < 10; ++k) {
        x += -16.0 * x * (x * x - 1.0) * dt + std::sqrt(2 * dt) * rng.normal();
        y += -2.0 * y * dt + std::sqrt(2 * dt) * rng.normal();
      }
      out.push_back(x);
      out.push_back(y);
    }
  }
  return out;
}

SpaceOptions tiny(const std::string& mode, int retrain_freq) {
  SpaceOptions o;
  o.mode = mode;
  o.dim = 1;
  o.seed = 5;
  o.learned.lagtime = 2;
  o.learned.retrain_freq = retrain_freq;
  auto& m = o.learned.model;
  m.encoder_hidden_dims = {8};
  m.decoder_hidden_dims = {8};
  m.deep_tica_hidden_dims = {8};
  m.epochs = 3;
  m.spib_n_states = 3;
  m.spib_refine_rounds = 1;
  return o;
}

Spans spans_of(int walkers, int frames) {
  Spans spans;
  for (int w = 0; w < walkers; ++w) spans.push_back({w, frames});
  return spans;
}

TEST(NeuralSpace, LaggedPairsStayInsideTheExactWalkerSegments) {
  // Walker 1 failed (no span) and walker 2 ended early: Trails-MD's step // stride blocks would
  // pair walker 2's frames with walker 3's (bug 8.2-5).
  SpaceStage st(tiny("vampnet", 1), 2);
  const Spans first = {{0, 12}, {2, 5}, {3, 12}};
  const Spans second = {{0, 12}, {1, 12}, {2, 3}};
  st.add_iteration(0, first, walk(first, 1));
  st.add_iteration(1, second, walk(second, 2));
  const TrainingSet set = st.current_training_set();
  EXPECT_EQ(set.segments, (std::vector<std::int64_t>{12, 5, 12, 12, 12, 3}));
  ASSERT_EQ(set.rows.size(), 56u * 2u);
  // Rows are the memory's features, MinMax-scaled with its range, in memory order.
  const auto f0 = st.features_of(0);
  EXPECT_EQ(set.rows[0], (f0[0] - set.lo[0]) / set.scale[0]);
  const auto pairs = learned::lagged_pairs(set.segments, set.lagtime);
  std::vector<std::int64_t> segment_of;
  for (std::size_t s = 0; s < set.segments.size(); ++s) {
    segment_of.insert(segment_of.end(), static_cast<std::size_t>(set.segments[s]),
                      static_cast<std::int64_t>(s));
  }
  std::size_t expected = 0;
  for (const auto n : set.segments) expected += n > 2 ? static_cast<std::size_t>(n - 2) : 0u;
  EXPECT_EQ(pairs.size(), expected);
  for (const auto& [i, j] : pairs) {
    EXPECT_EQ(j - i, 2);
    EXPECT_EQ(segment_of[static_cast<std::size_t>(i)], segment_of[static_cast<std::size_t>(j)])
        << "pair (" << i << ", " << j << ") crosses a walker boundary";
  }
}

TEST(NeuralSpace, ARetrainTakesEffectOneIterationAfterItsDecision) {
  SpaceStage st(tiny("vampnet", 2), 2);
  const Spans spans = spans_of(4, 20);
  st.add_iteration(0, spans, walk(spans, 10));  // the first model: trained at once
  EXPECT_TRUE(st.retrained());
  EXPECT_EQ(st.space_version(), 1);
  ASSERT_TRUE(st.new_model());
  EXPECT_EQ(st.new_model()->at("applied_at"), 0);
  ASSERT_TRUE(st.training_record());
  EXPECT_EQ(st.training_record()->epochs_run, 3);
  st.add_iteration(1, spans, walk(spans, 11));
  EXPECT_FALSE(st.retrained());
  EXPECT_FALSE(st.new_model());
  const auto before = st.model().project(st.features_of(0), 0);
  st.add_iteration(2, spans, walk(spans, 12));  // due: prepared, the old model still projects
  EXPECT_FALSE(st.retrained());
  EXPECT_EQ(st.pending_training(), 2);
  EXPECT_EQ(st.space_version(), 1);
  EXPECT_EQ(st.model().project(st.features_of(0), 0), before);
  st.start_training();  // the campaign starts it when iteration 3's MD starts
  st.add_iteration(3, spans, walk(spans, 13));
  EXPECT_TRUE(st.retrained());
  EXPECT_EQ(st.space_version(), 2);
  EXPECT_FALSE(st.pending_training());
  ASSERT_TRUE(st.new_model());
  EXPECT_EQ(st.new_model()->at("trained_at"), 2);
  EXPECT_EQ(st.new_model()->at("applied_at"), 3);
  EXPECT_NE(st.model().project(st.features_of(0), 0), before);
}

// A background retrain projects the history it saw with the new model while the MD runs; the
// stored CVs of every block must be what the installed model gives for those features now.
TEST(NeuralSpace, HistoryProjectedDuringTheMdIsTheInstalledModelsProjection) {
  SpaceOptions o = tiny("vampnet", 1);
  o.dim = 2;
  SpaceStage st(o, 2);
  const Spans spans = spans_of(3, 12);
  for (std::int64_t it = 0; it < 4; ++it) {
    st.start_training();
    st.add_iteration(it, spans, walk(spans, 50 + static_cast<std::uint64_t>(it)));
  }
  ASSERT_TRUE(st.retrained());  // decided at 2, installed at 3 with blocks 0..2 projected early
  ASSERT_EQ(st.new_model()->at("trained_at"), 2);
  std::int64_t global = 0, blocks = 0;
  st.for_each_projected_block([&](std::int64_t, auto, const std::vector<double>& cvs) {
    ++blocks;
    for (std::size_t r = 0; r < cvs.size() / 2; ++r, ++global) {
      const auto again = st.model().project(st.features_of(global), 0);
      EXPECT_EQ(again[0], cvs[2 * r]) << "frame " << global;
      EXPECT_EQ(again[1], cvs[2 * r + 1]) << "frame " << global;
    }
  });
  EXPECT_EQ(blocks, 4);
  EXPECT_EQ(global, 4 * 36);
}

TEST(NeuralSpace, TheResultDoesNotDependOnWhenTheTrainingStarted) {
  SpaceStage early(tiny("tvae", 1), 2), late(tiny("tvae", 1), 2);
  const Spans spans = spans_of(3, 15);
  for (std::int64_t it = 0; it < 3; ++it) {
    const auto frames = walk(spans, 20 + static_cast<std::uint64_t>(it));
    early.start_training();
    const auto a = early.add_iteration(it, spans, frames);
    const auto b = late.add_iteration(it, spans, frames);  // starts and joins inside
    EXPECT_EQ(a, b) << "iteration " << it;
  }
  EXPECT_EQ(early.state(), late.state());
}

TEST(NeuralSpace, SameSeedSameWeightsAnotherSeedOthers) {
  const Spans spans = spans_of(4, 20);
  const auto frames = walk(spans, 30);
  auto weights = [&](std::uint64_t seed) {
    SpaceOptions o = tiny("deep-tica", 1);
    o.seed = seed;
    SpaceStage st(o, 2);
    st.add_iteration(0, spans, frames);
    return model_weights(*st.new_model());  // the network's bytes, whichever format stores them
  };
  EXPECT_EQ(weights(1), weights(1));
  EXPECT_NE(weights(1), weights(2));
}

// Every neural kind trains in the loop, projects finite CVs, and a restored stage (state plus the
// stored model elements, a pending retrain included) continues bit for bit.
class EveryNeuralKind : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryNeuralKind, RestoredStateWithAPendingRetrainContinuesBitwise) {
  const SpaceOptions o = tiny(GetParam(), 2);
  const Spans spans = spans_of(4, 16);
  std::vector<std::vector<double>> frames;
  for (int it = 0; it < 5; ++it) frames.push_back(walk(spans, 40 + static_cast<std::uint64_t>(it)));
  SpaceStage ref(o, 2);
  std::map<std::int64_t, nlohmann::json> stored;  // the ledger's space_model elements
  nlohmann::json state_at_2;
  std::vector<std::vector<double>> cvs;
  for (std::int64_t it = 0; it < 5; ++it) {
    ref.start_training();
    cvs.push_back(ref.add_iteration(it, spans, frames[static_cast<std::size_t>(it)]));
    for (const double v : cvs.back()) ASSERT_TRUE(std::isfinite(v));
    if (auto m = ref.new_model()) stored[it] = *m;
    if (it == 2) state_at_2 = ref.state();
  }
  EXPECT_EQ(stored.size(), 2u);  // iteration 0 (first model) and 3 (decided at 2)
  EXPECT_TRUE(stored.contains(3));
  SpaceStage resumed(o, 2);
  resumed.restore(state_at_2, [&](std::int64_t it) { return stored.at(it); });
  EXPECT_EQ(resumed.pending_training(), 2);
  for (std::int64_t it = 0; it <= 2; ++it) {
    resumed.restore_features(it, spans, frames[static_cast<std::size_t>(it)]);
  }
  for (std::int64_t it = 3; it < 5; ++it) {
    resumed.start_training();
    EXPECT_EQ(resumed.add_iteration(it, spans, frames[static_cast<std::size_t>(it)]),
              cvs[static_cast<std::size_t>(it)])
        << GetParam() << " iteration " << it;
  }
  EXPECT_EQ(resumed.state(), ref.state());
}

INSTANTIATE_TEST_SUITE_P(Kinds, EveryNeuralKind,
                         ::testing::Values("tvae", "vampnet", "spib", "deep-tica"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::erase(n, '-');
                           return n;
                         });

TEST(NeuralSpace, ALatentDimensionAboveTheFeatureCountIsAConfigError) {
  SpaceOptions o = tiny("spib", 1);
  o.dim = 3;
  try {
    SpaceStage st(o, 2);
    FAIL() << "expected a ConfigError";
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("n_bins: 3 axes ask for a 3-dimensional learned space"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace trails::spaces
