#include "trails/spaces/space_stage.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "trails/analysis/pca.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

namespace trails::spaces {
namespace {

SpaceOptions options(const config::CampaignConfig& c) {
  SpaceOptions o;
  o.mode = c.space_mode;
  o.learned = c.learned;
  o.seed = c.random_seed;
  o.dim = c.cv_dimension();
  return o;
}

// Overdamped Langevin in an anisotropic 2-D double well, rotated by 30°: the slow coordinate
// u (barrier 4 kT along u) has the smaller variance; the fast harmonic v (stiffness 0.4) the
// larger one. So PCA's first axis is v, TICA's is u.
constexpr double kAngle = std::numbers::pi / 6;

std::vector<double> simulate(int walkers, int frames, int stride, std::uint64_t seed) {
  const double c = std::cos(kAngle), s = std::sin(kAngle), dt = 0.005;
  std::vector<double> out;
  for (int w = 0; w < walkers; ++w) {
    core::Rng rng = core::Rng::stream(seed, "test-walk", static_cast<std::uint64_t>(w));
    double u = w % 2 ? 1.0 : -1.0, v = 0.0;
    for (int f = 0; f < frames; ++f) {
      for (int k = 0; k < stride; ++k) {
        const double fu = -16.0 * u * (u * u - 1.0);  // V = 4 (u^2 - 1)^2
        const double fv = -0.4 * v;
        u += fu * dt + std::sqrt(2 * dt) * rng.normal();
        v += fv * dt + std::sqrt(2 * dt) * rng.normal();
      }
      out.push_back(c * u - s * v);
      out.push_back(s * u + c * v);
    }
  }
  return out;
}

config::CampaignConfig learned_config(const std::string& mode, int dim) {
  config::CampaignConfig c;
  c.space_mode = mode;
  c.n_bins.assign(dim, 20);
  c.learned.lagtime = 10;
  c.random_seed = 3;
  return c;
}

std::vector<features::FrameHistory::WalkerSpan> walker_spans(int walkers, int frames) {
  std::vector<features::FrameHistory::WalkerSpan> spans;
  for (int w = 0; w < walkers; ++w) spans.push_back({w, frames});
  return spans;
}

double alignment_with(const analysis::LinearProjection& p, double angle) {
  const Eigen::Vector2d axis(std::cos(angle), std::sin(angle));
  const Eigen::Vector2d w = p.coefficients.col(0);
  return std::abs(w.dot(axis)) / w.norm();
}

TEST(SpaceStage, FirstTicaComponentIsTheSlowCoordinate) {
  const int walkers = 4, frames = 2000;
  const auto x = simulate(walkers, frames, 20, 11);
  const auto spans = walker_spans(walkers, frames);
  SpaceStage tica(options(learned_config("tica", 1)), 2);
  tica.add_iteration(0, spans, x);
  ASSERT_TRUE(tica.retrained());
  EXPECT_GT(alignment_with(tica.projection(), kAngle), 0.98);
  // The test discriminates: PCA, which ranks by (MinMax-scaled) variance, leans to the fast axis.
  SpaceStage pca(options(learned_config("pca", 1)), 2);
  pca.add_iteration(0, spans, x);
  EXPECT_GT(alignment_with(pca.projection(), kAngle + std::numbers::pi / 2), 0.85);
  EXPECT_LT(alignment_with(pca.projection(), kAngle), 0.5);
}

// compat:feature-scaling: the features are MinMax-scaled with the training range before the fit;
// the stage folds the scaling into its projection, so it equals PCA of the explicitly scaled
// frames.
TEST(SpaceStage, PcaIsFittedOnMinMaxScaledFeatures) {
  const int walkers = 2, frames = 500;
  auto x = simulate(walkers, frames, 10, 21);
  for (std::size_t r = 0; r < x.size(); r += 2) x[r] *= 7.0;  // very different ranges
  SpaceStage st(options(learned_config("pca", 1)), 2);
  const auto y = st.add_iteration(0, walker_spans(walkers, frames), x);
  analysis::FrameMatrix scaled =
      Eigen::Map<const analysis::FrameMatrix>(x.data(), walkers * frames, 2);
  for (int c = 0; c < 2; ++c) {
    const double lo = scaled.col(c).minCoeff(), hi = scaled.col(c).maxCoeff();
    scaled.col(c) = (scaled.col(c).array() - lo) / (hi - lo);
  }
  analysis::RunningMoments m(2, 0);
  m.add_segment(scaled);
  analysis::PcaOptions o;
  o.dim = 1;
  const auto ref = analysis::fit_pca(m, o).transform(scaled);
  for (int r = 0; r < walkers * frames; ++r) EXPECT_NEAR(y[r], ref(r, 0), 1e-10);
}

TEST(SpaceStage, ProjectionMatchesLinearProjectionAndGridBoxPadsTheDataBounds) {
  const auto x = simulate(3, 300, 10, 5);
  SpaceStage st(options(learned_config("tica", 2)), 2);
  const auto y = st.add_iteration(0, walker_spans(3, 300), x);
  ASSERT_EQ(y.size(), x.size());
  Eigen::Map<const analysis::FrameMatrix> xm(x.data(), 900, 2);
  const analysis::FrameMatrix ref = st.projection().transform(xm);
  double lo = 1e300, hi = -1e300;
  for (int r = 0; r < 900; ++r) {
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(y[r * 2 + j], ref(r, j), 1e-12);
    lo = std::min(lo, y[r * 2]);
    hi = std::max(hi, y[r * 2]);
  }
  const auto grid = st.grid({20, 20});
  EXPECT_DOUBLE_EQ(grid.min_values()[0], lo - 0.1 * (hi - lo));
  EXPECT_DOUBLE_EQ(grid.max_values()[0], hi + 0.1 * (hi - lo));
}

TEST(SpaceStage, RestoredStateContinuesBitwise) {
  auto cfg = learned_config("tica", 1);
  cfg.learned.retrain_freq = 2;
  cfg.learned.max_adaptive_memory_frames = 200;  // 200-frame blocks: at most 5 kept (pruned)
  SpaceStage a(options(cfg), 2);
  std::vector<std::vector<double>> its;
  for (int i = 0; i < 9; ++i) its.push_back(simulate(2, 100, 10, 100 + i));
  const auto spans = walker_spans(2, 100);
  for (int i = 0; i < 8; ++i) a.add_iteration(i, spans, its[i]);
  ASSERT_LT(a.state().at("memory_iterations").size(), 8u);
  // A resumed stage: the ledger state (through JSON text) plus the stored features.
  SpaceStage b(options(cfg), 2);
  b.restore(nlohmann::json::parse(a.state().dump()));
  for (int i = 0; i < 8; ++i) b.restore_features(i, spans, its[i]);
  const auto ya = a.add_iteration(8, spans, its[8]);
  const auto yb = b.add_iteration(8, spans, its[8]);
  EXPECT_TRUE(a.retrained());  // 8 % 2 == 0: the fit uses the recomputed memory
  EXPECT_EQ(ya, yb);
  EXPECT_EQ(a.state().dump(), b.state().dump());
  std::vector<double> ha, hb;
  a.for_each_projected_block(
      [&](auto, auto, const auto& y) { ha.insert(ha.end(), y.begin(), y.end()); });
  b.for_each_projected_block(
      [&](auto, auto, const auto& y) { hb.insert(hb.end(), y.begin(), y.end()); });
  EXPECT_EQ(ha, hb);
  EXPECT_EQ(a.space_version(), 5);  // iterations 0, 2, 4, 6, 8
  EXPECT_EQ(a.features_of(250)[0], its[1][2 * 50]);
}

TEST(SpaceStage, FixedPolicyScheduleAndBoundedMemory) {
  auto cfg = learned_config("pca", 1);
  cfg.learned.retrain_freq = 3;
  cfg.learned.max_adaptive_memory_frames = 100;  // 100 frames per block: max(5, 1) = 5 blocks
  SpaceStage st(options(cfg), 2);
  std::vector<int> retrained;
  for (int i = 0; i < 12; ++i) {
    st.add_iteration(i, walker_spans(1, 100), simulate(1, 100, 5, 40 + i));
    if (st.retrained()) retrained.push_back(i);
  }
  EXPECT_EQ(retrained, (std::vector<int>{0, 3, 6, 9}));
  const auto memory = st.state().at("memory_iterations").get<std::vector<std::int64_t>>();
  ASSERT_EQ(memory.size(), 5u);
  EXPECT_EQ(memory.front(), 0);  // the anchor
  EXPECT_EQ(memory.back(), 11);  // the most recent block
  EXPECT_TRUE(std::is_sorted(memory.begin(), memory.end()));
}

TEST(SpaceStage, WithoutAggregateMemoryTrainsOnTheCurrentIterationOnly) {
  auto cfg = learned_config("pca", 1);
  cfg.learned.aggregate_memory = false;
  SpaceStage st(options(cfg), 2);
  st.add_iteration(0, walker_spans(1, 50), simulate(1, 50, 5, 1));
  st.add_iteration(1, walker_spans(1, 50), simulate(1, 50, 5, 2));
  EXPECT_TRUE(st.state().at("memory_iterations").empty());
  EXPECT_EQ(st.space_version(), 2);
}

TEST(SpaceStage, VampAdaptiveSkipsWhileTheModelStillScoresWell) {
  auto cfg = learned_config("tica", 1);
  cfg.learned.retrain_policy = config::RetrainPolicyKind::VampAdaptive;
  cfg.learned.vamp_retrain_tol = 0.5;
  cfg.learned.retrain_max_interval = 3;
  SpaceStage st(options(cfg), 2);
  std::vector<int> retrained;
  for (int i = 0; i < 7; ++i) {
    st.add_iteration(i, walker_spans(2, 400), simulate(2, 400, 20, 70 + i));
    if (st.retrained()) retrained.push_back(i);
  }
  // Same process each iteration: no large VAMP-2 drop, so only the max_interval forces refits.
  EXPECT_EQ(retrained, (std::vector<int>{0, 4}));
  EXPECT_FALSE(st.state().at("controller").at("reference_score").is_null());
}

// Three columns per frame: `slow` is the double-well coordinate, column 1 a fast
// Ornstein-Uhlenbeck process, the remaining column white noise.
std::vector<double> three_columns(int walkers, int frames, int slow, std::uint64_t seed) {
  const double dt = 0.005;
  std::vector<double> out;
  for (int w = 0; w < walkers; ++w) {
    core::Rng rng = core::Rng::stream(seed, "test-three", static_cast<std::uint64_t>(w));
    double u = w % 2 ? 1.0 : -1.0, v = 0.0;
    for (int f = 0; f < frames; ++f) {
      for (int k = 0; k < 20; ++k) {
        u += -16.0 * u * (u * u - 1.0) * dt + std::sqrt(2 * dt) * rng.normal();
        v += -40.0 * v * dt + std::sqrt(2 * dt) * rng.normal();
      }
      const double noise = rng.normal();
      double row[3];
      row[1] = v;
      row[slow] = u;
      row[slow == 0 ? 2 : 0] = noise;
      out.insert(out.end(), row, row + 3);
    }
  }
  return out;
}

config::CampaignConfig selection_config() {
  auto c = learned_config("tica", 1);
  c.learned.selection.enabled = true;
  c.learned.selection.lagtime = 5;
  c.learned.selection.cadence = 2;
  c.learned.selection.dim = 1;
  c.learned.selection.min_gain = 0.01;
  return c;
}

// compat:vamp-column-selection, known answer: greedy VAMP-2 selection keeps only the slow
// coordinate, and the fitted map ignores the other columns.
TEST(SpaceStage, FeatureSelectionPicksTheSlowCoordinate) {
  for (const int slow : {0, 2}) {
    SpaceStage st(options(selection_config()), 3);
    st.add_iteration(0, walker_spans(4, 400), three_columns(4, 400, slow, 31));
    ASSERT_TRUE(st.selected_columns().has_value());
    EXPECT_EQ(*st.selected_columns(), std::vector<int>{slow});
    for (int c = 0; c < 3; ++c) {
      if (c != slow) {
        EXPECT_EQ(st.projection().coefficients(c, 0), 0.0);
      }
    }
    EXPECT_NE(st.projection().coefficients(slow, 0), 0.0);
  }
}

// The selection is redone at retrain time when iteration % cadence == 0 and kept otherwise;
// a resumed stage continues bit for bit.
TEST(SpaceStage, FeatureSelectionResumesBitwise) {
  const auto cfg = selection_config();
  std::vector<std::vector<double>> its;
  for (int i = 0; i < 6; ++i) its.push_back(three_columns(2, 200, 0, 50 + i));
  const auto spans = walker_spans(2, 200);
  SpaceStage a(options(cfg), 3);
  for (int i = 0; i < 4; ++i) a.add_iteration(i, spans, its[i]);
  SpaceStage b(options(cfg), 3);
  b.restore(nlohmann::json::parse(a.state().dump()));
  for (int i = 0; i < 4; ++i) b.restore_features(i, spans, its[i]);
  for (int i = 4; i < 6; ++i)
    EXPECT_EQ(a.add_iteration(i, spans, its[i]), b.add_iteration(i, spans, its[i]));
  EXPECT_EQ(a.state().dump(), b.state().dump());
  EXPECT_EQ(*a.selected_columns(), std::vector<int>{0});
}

// Two feature types over 3-column frames: "a" = (x0, x1), "b" = (x2, x1).
class TwoTypes final : public features::FeatureSource {
 public:
  const std::vector<std::string>& types() const override { return types_; }
  int n_features(const std::string&) const override { return 2; }
  std::vector<double> compute(const std::string& type, std::span<const double> frames,
                              std::int64_t n, std::span<const double>) const override {
    std::vector<double> out;
    for (std::int64_t r = 0; r < n; ++r) {
      out.push_back(frames[static_cast<std::size_t>(3 * r + (type == "a" ? 0 : 2))]);
      out.push_back(frames[static_cast<std::size_t>(3 * r + 1)]);
    }
    return out;
  }

 private:
  std::vector<std::string> types_{"a", "b"};
};

// compat:feature-type-ranking: the type is ranked on the current iteration at first use and every
// cadence iterations; when the slow column moves to type b's, the stage switches, recomputes every
// stored block in the new type from the committed frames, refits, and resumes bitwise.
TEST(SpaceStage, FeatureTypeRankingSwitchesAndRecomputesHistory) {
  auto cfg = selection_config();
  cfg.learned.selection.candidate_feature_types = {"a", "b"};
  cfg.learned.retrain_freq = 0;  // after the first fit only a type switch refits
  std::vector<std::vector<double>> its;
  for (int i = 0; i < 6; ++i) its.push_back(three_columns(2, 300, i < 2 ? 0 : 2, 80 + i));
  const auto spans = walker_spans(2, 300);
  int loads = 0;
  auto loader = [&](std::int64_t it, std::span<const features::FrameHistory::WalkerSpan>) {
    ++loads;
    return SpaceStage::Frames{its[static_cast<std::size_t>(it)], {}};
  };
  TwoTypes source;
  SpaceStage a(options(cfg), source, loader);
  std::vector<std::string> types;
  std::vector<int> refits;
  for (int i = 0; i < 4; ++i) {
    a.add_iteration(i, spans, its[i]);
    types.push_back(a.feature_type());
    if (a.retrained()) refits.push_back(i);
  }
  EXPECT_EQ(types, (std::vector<std::string>{"a", "a", "b", "b"}));
  EXPECT_EQ(refits, (std::vector<int>{0, 2}));
  EXPECT_EQ(loads, 2);                                    // iterations 0 and 1 recomputed in type b
  EXPECT_EQ(*a.selected_columns(), std::vector<int>{0});  // x2, the slow column of type b
  EXPECT_EQ(a.features_of(0)[0], its[0][2]);              // history now holds type b
  SpaceStage b(options(cfg), source, loader);
  b.restore(nlohmann::json::parse(a.state().dump()));
  for (int i = 0; i < 4; ++i) b.restore_features(i, spans, its[i]);
  for (int i = 4; i < 6; ++i)
    EXPECT_EQ(a.add_iteration(i, spans, its[i]), b.add_iteration(i, spans, its[i]));
  EXPECT_EQ(a.state().dump(), b.state().dump());
}

// The moments algorithm of a TICA space (docs/cvs.md, "Moments algorithm"): new runs use the
// reversible moments and record it; their CVs equal the running moments' to rounding.
TEST(SpaceStage, TicaOnReversibleMomentsMatchesRunningMomentsAndIsRecorded) {
  auto cfg = learned_config("tica", 2);
  cfg.learned.retrain_freq = 2;
  SpaceOptions fast = options(cfg), slow = options(cfg);
  slow.moments = MomentsAlgorithm::Running;
  SpaceStage a(fast, 2), b(slow, 2);
  EXPECT_EQ(a.moments_algorithm(), MomentsAlgorithm::ReversibleRows);
  for (int i = 0; i < 4; ++i) {
    const auto x = simulate(3, 200, 10, 300 + i);
    const auto ya = a.add_iteration(i, walker_spans(3, 200), x);
    const auto yb = b.add_iteration(i, walker_spans(3, 200), x);
    ASSERT_EQ(ya.size(), yb.size());
    for (std::size_t r = 0; r < ya.size(); ++r) EXPECT_NEAR(ya[r], yb[r], 1e-9);
  }
  EXPECT_EQ(a.state().at("moments"), "reversible_rows");
  EXPECT_FALSE(b.state().contains("moments"));  // the state of runs created before
  // Under the fixed policy the reversible space records no reference score (nothing reads it).
  EXPECT_TRUE(a.state().at("controller").at("reference_score").is_null());
  EXPECT_FALSE(b.state().at("controller").at("reference_score").is_null());
}

// Runs created before keep their moments algorithm: the running moments (no key) and the
// reversible moments in Eigen's blocked order ("reversible") both resume bitwise.
TEST(SpaceStage, ARunOnEarlierMomentsResumesOnThemBitwise) {
  auto cfg = learned_config("tica", 1);
  std::vector<std::vector<double>> its;
  for (int i = 0; i < 4; ++i) its.push_back(simulate(2, 150, 10, 500 + i));
  for (const auto earlier : {MomentsAlgorithm::Reversible, MomentsAlgorithm::Running}) {
    SpaceOptions before = options(cfg);
    before.moments = earlier;
    SpaceStage a(before, 2);
    for (int i = 0; i < 3; ++i) a.add_iteration(i, walker_spans(2, 150), its[i]);
    // Resumed by today's Trails, whose new TICA runs default to reversible_rows.
    SpaceStage b(options(cfg), 2);
    b.restore(nlohmann::json::parse(a.state().dump()));
    EXPECT_EQ(b.moments_algorithm(), earlier);
    for (int i = 0; i < 3; ++i) b.restore_features(i, walker_spans(2, 150), its[i]);
    EXPECT_EQ(a.add_iteration(3, walker_spans(2, 150), its[3]),
              b.add_iteration(3, walker_spans(2, 150), its[3]));
    EXPECT_EQ(a.state().dump(), b.state().dump());
  }
  SpaceOptions slow = options(cfg);
  slow.moments = MomentsAlgorithm::Running;
  SpaceStage a(slow, 2);
  for (int i = 0; i < 3; ++i) a.add_iteration(i, walker_spans(2, 150), its[i]);
  // A moments algorithm this Trails does not know is a corrupt state, named as such.
  auto bad = a.state();
  bad["moments"] = "blocked";
  SpaceStage c(options(cfg), 2);
  EXPECT_THROW(c.restore(bad), core::CorruptionError);
  bad = a.state();
  bad["moments"] = "reversible";
  bad["mode"] = "pca";
  SpaceStage d(options(learned_config("pca", 1)), 2);
  EXPECT_THROW(d.restore(bad), core::CorruptionError);
}

TEST(SpaceStage, ReversibleTicaIsIndependentOfTheThreadCount) {
  auto cfg = learned_config("tica", 2);
  SpaceOptions one = options(cfg), all = options(cfg);
  one.threads = 1;
  SpaceStage a(one, 2), b(all, 2);
  // Many short walker segments and one longer than a block of ReversibleMoments.
  std::vector<features::FrameHistory::WalkerSpan> spans = walker_spans(40, 60);
  spans.push_back({40, 5000});
  std::vector<double> x;
  for (int w = 0; w < 40; ++w) {
    const auto s = simulate(1, 60, 5, 700 + w);
    x.insert(x.end(), s.begin(), s.end());
  }
  const auto tail = simulate(1, 5000, 5, 800);
  x.insert(x.end(), tail.begin(), tail.end());
  EXPECT_EQ(a.add_iteration(0, spans, x), b.add_iteration(0, spans, x));
  EXPECT_EQ(a.state().dump(), b.state().dump());
}

}  // namespace
}  // namespace trails::spaces
