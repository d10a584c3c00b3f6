// MsmStage's contract (src/trails/msm/msm_stage.h, docs/analysis.md "In the loop") on
// synthetic data: a two-state Markov chain in a 1-D CV space, with the states 10 apart and noise
// 0.1, so that 2-means recovers the states exactly and the counted transitions are known.
// The driver below calls the stage as the campaign does: join (after MD), append the iteration's
// frames, observe, start, checkpoint. The history is declared before the stage so that it
// outlives a build still pending when the stage is destroyed.
#include "trails/msm/msm_stage.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "trails/core/rng.h"

namespace trails::msm {
namespace {

constexpr int kWalkers = 4;
constexpr int kFrames = 60;  // frames per walker segment

// One iteration of the chain: walker segments of kFrames states, each step leaving state 0
// with probability p01 and state 1 with p10.
struct Iteration {
  std::vector<features::FrameHistory::WalkerSpan> spans;
  std::vector<double> cvs;
  std::vector<int> states;
};

Iteration make_iteration(std::uint64_t seed, std::int64_t n, double p01, double p10,
                         int frames = kFrames) {
  Iteration it;
  for (int w = 0; w < kWalkers; ++w) {
    auto rng = core::Rng::stream(seed, "msm-stage-test", static_cast<std::uint64_t>(n),
                                 static_cast<std::uint64_t>(w));
    int s = w % 2;
    for (int f = 0; f < frames; ++f) {
      it.states.push_back(s);
      it.cvs.push_back(10.0 * s + 0.1 * rng.normal());
      if (rng.uniform() < (s == 0 ? p01 : p10)) s = 1 - s;
    }
    it.spans.push_back({w, frames});
  }
  return it;
}

config::MsmConfig msm_config() {
  config::MsmConfig m;
  m.enabled = true;
  m.cadence = 1;
  m.min_frames = 2 * kWalkers * kFrames;  // reached after the second iteration
  m.n_microstates = 2;
  m.lagtime = 1;
  m.n_timescales = 1;
  m.criteria.its_tol = 0.05;
  m.criteria.its_n = 1;
  m.convergence_patience = 2;
  return m;
}

// The campaign's call order for one iteration; returns the build joined before it, if any.
// explored: the campaign grid's occupied fraction at iteration n (the exploration floor's input).
std::optional<MsmBuild> run_iteration(MsmStage& stage, features::FrameHistory& history,
                                      std::int64_t n, const Iteration& it, double explored = 1.0) {
  auto joined = stage.join();
  const auto first = history.append(n, it.spans, it.cvs);
  stage.observe(first, it.spans);
  stage.start(n, history, explored);
  return joined;
}

TEST(MsmStage, BuildsOnlyAtCadenceOnceMinFramesAreReached) {
  auto config = msm_config();
  config.cadence = 2;
  config.min_frames = 3 * kWalkers * kFrames;
  features::FrameHistory history(1);
  MsmStage stage(config, 7, 1, false);
  std::vector<bool> pending;
  for (std::int64_t n = 0; n < 6; ++n) {
    run_iteration(stage, history, n, make_iteration(7, n, 0.1, 0.2));
    pending.push_back(stage.pending());
  }
  // Iterations 0 and 1 lack frames (240, 480 < 720); 2 has 720 frames and is a cadence
  // iteration; 3 and 5 are off-cadence.
  EXPECT_EQ(pending, (std::vector<bool>{false, false, true, false, true, false}));
  EXPECT_EQ(stage.latest()->iteration, 4);  // build 4 was joined at iteration 5
}

TEST(MsmStage, DisabledStageNeverBuilds) {
  auto config = msm_config();
  config.enabled = false;
  features::FrameHistory history(1);
  MsmStage stage(config, 7, 1, false);
  for (std::int64_t n = 0; n < 3; ++n)
    run_iteration(stage, history, n, make_iteration(7, n, 0.1, 0.2));
  EXPECT_FALSE(stage.pending());
  EXPECT_EQ(stage.latest(), nullptr);
  EXPECT_FALSE(stage.join().has_value());
}

TEST(MsmStage, BuildIsTheMleOfTheCountedTransitions) {
  features::FrameHistory history(1);
  MsmStage stage(msm_config(), 11, 1, false);
  std::vector<int> states;
  for (std::int64_t n = 0; n < 2; ++n) {
    const auto it = make_iteration(11, n, 0.1, 0.2);
    run_iteration(stage, history, n, it);
    states.insert(states.end(), it.states.begin(), it.states.end());
  }
  ASSERT_TRUE(stage.pending());
  const auto b = stage.join();
  ASSERT_TRUE(b.has_value());

  // Transitions at lag 1 within each walker segment, counted by hand from the chain.
  double c[2][2] = {{0, 0}, {0, 0}};
  double visits[2] = {0, 0};
  for (std::size_t seg = 0; seg < states.size() / kFrames; ++seg) {
    for (int f = 0; f < kFrames; ++f) {
      const int s = states[seg * kFrames + f];
      visits[s] += 1;
      if (f + 1 < kFrames) c[s][states[seg * kFrames + f + 1]] += 1;
    }
  }
  EXPECT_EQ(b->iteration, 1);
  EXPECT_EQ(b->frames, 2 * kWalkers * kFrames);
  EXPECT_EQ(b->min_segment, kFrames);
  EXPECT_TRUE(b->refit);
  EXPECT_EQ(b->lag, 1);
  EXPECT_EQ(b->n_microstates, 2);
  ASSERT_EQ(b->active_set.size(), 2u);
  ASSERT_TRUE(b->clustering);
  // Microstate of the chain's state s: the centre near 10 s.
  const auto& centres = b->clustering->centres;
  const int m0 = std::abs(centres(0, 0)) < std::abs(centres(1, 0)) ? 0 : 1;
  EXPECT_NEAR(centres(m0, 0), 0.0, 0.05);
  EXPECT_NEAR(centres(1 - m0, 0), 10.0, 0.05);
  const auto row = [&](int s) { return s == 0 ? m0 : 1 - m0; };  // active index = microstate id
  EXPECT_EQ(b->active_set, (std::vector<int>{0, 1}));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(b->C(row(i), row(0)), c[i][0]);
    EXPECT_EQ(b->C(row(i), row(1)), c[i][1]);
    EXPECT_EQ(b->counts_per_state[static_cast<std::size_t>(row(i))], visits[i]);
    // Two states: every stochastic matrix is reversible, so the reversible MLE is the row-
    // normalised count matrix.
    const double n_i = c[i][0] + c[i][1];
    EXPECT_NEAR(b->T(row(i), row(0)), c[i][0] / n_i, 1e-6);
    EXPECT_NEAR(b->T(row(i), row(1)), c[i][1] / n_i, 1e-6);
  }
  // pi from detailed balance, the timescale -lag / ln(lambda_2) with lambda_2 = 1 - t01 - t10.
  const double t01 = c[0][1] / (c[0][0] + c[0][1]);
  const double t10 = c[1][0] / (c[1][0] + c[1][1]);
  EXPECT_NEAR(b->pi[static_cast<std::size_t>(row(0))], t10 / (t01 + t10), 1e-6);
  ASSERT_EQ(b->timescales.size(), 1u);
  EXPECT_NEAR(b->timescales[0], -1.0 / std::log(1.0 - t01 - t10), 1e-4);
  const double lambda2 = 1.0 - t01 - t10;
  EXPECT_NEAR(*b->vamp2, 1.0 + lambda2 * lambda2, 1e-6);
  EXPECT_EQ(b->eigenvectors.rows(), 2);
  EXPECT_EQ(b->eigenvectors.cols(), 1);

  // The committed record (the ledger's msm_builds payload) carries the same numbers.
  const auto j = b->to_json();
  EXPECT_EQ(j.at("iteration"), 1);
  EXPECT_EQ(j.at("frames"), 2 * kWalkers * kFrames);
  EXPECT_EQ(j.at("n_active"), 2);
  EXPECT_EQ(j.at("lagtime"), 1);
  EXPECT_EQ(j.at("estimator"), "mle");
  EXPECT_EQ(j.at("count_matrix")[row(0)][row(1)].get<double>(), c[0][1]);
  EXPECT_EQ(j.at("timescales")[0].get<double>(), b->timescales[0]);
  EXPECT_EQ(j.at("criteria"), "implied_timescales: baseline");
  EXPECT_EQ(j.at("note"), "");
  EXPECT_TRUE(j.at("n_metastable").is_null());
}

TEST(MsmStage, LengthOneSegmentsAreNotCounted) {
  auto config = msm_config();
  config.min_frames = 1;
  features::FrameHistory history(1);
  MsmStage stage(config, 3, 1, false);
  run_iteration(stage, history, 0, make_iteration(3, 0, 0.1, 0.2, 1));
  const auto b = stage.join();
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->frames, 0);
  EXPECT_EQ(b->note, "no walker segment longer than one frame");
}

// Monitor verdicts on a known chain: every iteration is an exact copy of the same frames, so
// each build's counts are proportional to the first build's: the same T and timescale (relative
// change ~1e-15), i.e. every build after the baseline meets the criterion.
TEST(MsmStage, MonitorCertifiesAStationaryModelAfterPatienceBuilds) {
  features::FrameHistory history(1);
  MsmStage stage(msm_config(), 5, 1, false);
  const auto base = make_iteration(5, 0, 0.1, 0.2);
  run_iteration(stage, history, 0, base);                  // 240 frames < min_frames: no build
  run_iteration(stage, history, 1, base);                  // build 1
  const auto b1 = run_iteration(stage, history, 2, base);  // joins build 1; build 2
  const auto b2 = run_iteration(stage, history, 3, base);  // joins build 2; build 3 (a refit)
  const auto b3 = stage.join();
  ASSERT_TRUE(b1 && b2 && b3);
  EXPECT_FALSE(b1->criteria_met);
  EXPECT_EQ(b1->streak, 0);
  EXPECT_EQ(b1->criteria, "implied_timescales: baseline");
  EXPECT_FALSE(b1->converged);
  EXPECT_TRUE(b2->criteria_met) << b2->criteria;
  EXPECT_EQ(b2->streak, 1);
  EXPECT_FALSE(b2->converged);
  EXPECT_TRUE(b3->refit);  // 960 frames >= twice the 480 of the last fit
  EXPECT_NEAR(b3->timescales[0], b1->timescales[0], 1e-9 * b1->timescales[0]);
  EXPECT_TRUE(b3->criteria_met) << b3->criteria;
  EXPECT_EQ(b3->criteria.rfind("implied_timescales: max relative change ", 0), 0u) << b3->criteria;
  EXPECT_EQ(b3->streak, 2);
  EXPECT_TRUE(b3->lag_guard_ok);  // lagtime 1 x 5 <= 60-frame segments
  EXPECT_TRUE(b3->converged);
  EXPECT_TRUE(stage.converged());
  EXPECT_EQ(stage.reason().rfind("MSM convergence: criteria (all) satisfied for 2 consecutive", 0),
            0u)
      << stage.reason();
  EXPECT_EQ(b3->reason, stage.reason());
}

TEST(MsmStage, MonitorResetsTheStreakWhenTheModelChanges) {
  auto config = msm_config();
  config.convergence_patience = 3;
  features::FrameHistory history(1);
  MsmStage stage(config, 5, 1, false);
  const auto base = make_iteration(5, 0, 0.1, 0.2);
  run_iteration(stage, history, 0, base);
  run_iteration(stage, history, 1, base);  // build 1 (baseline): base twice
  run_iteration(stage, history, 2, base);  // build 2: base x3, same T -> met
  const auto b2 = stage.join();
  ASSERT_TRUE(b2.has_value());
  EXPECT_TRUE(b2->criteria_met) << b2->criteria;
  EXPECT_EQ(b2->streak, 1);
  // A much faster chain: its frames double the data (a refit) and move the timescale.
  auto fast = make_iteration(5, 3, 0.45, 0.45);
  for (int k = 0; k < 3; ++k) {
    const auto n = history.frames();
    const auto first = history.append(3 + k, fast.spans, fast.cvs);
    stage.observe(first, fast.spans);
    ASSERT_EQ(first, n);
  }
  stage.start(5, history, 1.0);
  const auto b5 = stage.join();
  ASSERT_TRUE(b5.has_value());
  EXPECT_TRUE(b5->refit);
  EXPECT_FALSE(b5->criteria_met) << b5->criteria;
  EXPECT_EQ(b5->streak, 0);
  EXPECT_FALSE(stage.converged());
}

// MSM criteria alone do not stop a campaign below msm.min_explored_fraction (docs/analysis.md):
// the same self-consistent model is certified only once the grid is explored enough.
TEST(MsmStage, ExplorationFloorBlocksCertificationUntilReached) {
  auto config = msm_config();
  config.convergence_patience = 1;
  config.min_explored_fraction = 0.5;
  features::FrameHistory history(1);
  MsmStage stage(config, 5, 1, false);
  const auto base = make_iteration(5, 0, 0.1, 0.2);
  for (std::int64_t n = 0; n < 4; ++n) run_iteration(stage, history, n, base, 0.16);
  const auto low = stage.join();  // build 3, met (streak 2) at 16 % explored
  ASSERT_TRUE(low.has_value());
  EXPECT_TRUE(low->criteria_met) << low->criteria;
  EXPECT_GE(low->streak, 1);
  EXPECT_FALSE(low->converged);
  EXPECT_FALSE(stage.converged());
  run_iteration(stage, history, 4, base, 0.5);
  const auto reached = stage.join();
  ASSERT_TRUE(reached.has_value());
  EXPECT_TRUE(reached->criteria_met) << reached->criteria;
  EXPECT_TRUE(reached->converged);
  EXPECT_TRUE(stage.converged());
}

TEST(MsmStage, LagGuardBlocksCertification) {
  auto config = msm_config();
  config.lagtime = 13;  // 13 x 5 = 65 > the 60-frame segments
  config.convergence_patience = 1;
  features::FrameHistory history(1);
  MsmStage stage(config, 5, 1, false);
  const auto base = make_iteration(5, 0, 0.1, 0.2);
  for (std::int64_t n = 0; n < 3; ++n) run_iteration(stage, history, n, base);
  const auto b = stage.join();
  ASSERT_TRUE(b.has_value());
  EXPECT_FALSE(b->lag_guard_ok);
  EXPECT_TRUE(b->criteria_met) << b->criteria;
  EXPECT_FALSE(b->converged);
  EXPECT_FALSE(stage.converged());
}

// Resume: a stage restored from state() (taken where the campaign checkpoints it, after start)
// continues exactly as the uninterrupted stage, build for build.
void expect_resume_equals_uninterrupted(bool overlap) {
  const int n_iter = 7;
  std::vector<Iteration> data;
  for (std::int64_t n = 0; n < n_iter; ++n) data.push_back(make_iteration(9, n, 0.1, 0.2));
  auto config = msm_config();
  config.lagtimes = {1, 2, 4};

  std::vector<nlohmann::json> uninterrupted;
  {
    features::FrameHistory history(1);
    MsmStage stage(config, 9, 1, overlap);
    for (std::int64_t n = 0; n < n_iter; ++n) {
      if (auto b = run_iteration(stage, history, n, data[n])) uninterrupted.push_back(b->to_json());
    }
    if (auto b = stage.join()) uninterrupted.push_back(b->to_json());
  }
  ASSERT_EQ(uninterrupted.size(), static_cast<std::size_t>(n_iter - 1));

  for (const std::int64_t stop : {2, 4}) {  // checkpoint after iteration `stop`
    std::vector<nlohmann::json> resumed;
    nlohmann::json checkpoint;
    {
      features::FrameHistory history(1);
      MsmStage stage(config, 9, 1, overlap);
      for (std::int64_t n = 0; n <= stop; ++n) {
        if (auto b = run_iteration(stage, history, n, data[n])) resumed.push_back(b->to_json());
      }
      checkpoint = nlohmann::json::parse(stage.state().dump());  // through text, as the ledger
    }  // the process dies here; the pending build is lost with it
    features::FrameHistory history(1);
    MsmStage stage(config, 9, 1, overlap);
    for (std::int64_t n = 0; n <= stop; ++n) {
      stage.observe(history.append(n, data[n].spans, data[n].cvs), data[n].spans);
    }
    stage.restore(checkpoint, history);
    EXPECT_TRUE(stage.pending());
    ASSERT_NE(stage.latest(), nullptr);
    for (std::int64_t n = stop + 1; n < n_iter; ++n) {
      if (auto b = run_iteration(stage, history, n, data[n])) resumed.push_back(b->to_json());
    }
    if (auto b = stage.join()) resumed.push_back(b->to_json());
    ASSERT_EQ(resumed.size(), uninterrupted.size()) << "stop " << stop;
    for (std::size_t i = 0; i < resumed.size(); ++i) {
      EXPECT_EQ(resumed[i], uninterrupted[i]) << "stop " << stop << ", build " << i;
    }
  }
}

TEST(MsmStage, ResumeFromStateEqualsUninterrupted) { expect_resume_equals_uninterrupted(false); }

TEST(MsmStage, ResumeFromStateEqualsUninterruptedWithOverlap) {
  expect_resume_equals_uninterrupted(true);
}

TEST(MsmStage, OverlapGivesTheSameBuildsAsInline) {
  std::vector<nlohmann::json> out[2];
  for (const bool overlap : {false, true}) {
    features::FrameHistory history(1);
    MsmStage stage(msm_config(), 4, 1, overlap);
    for (std::int64_t n = 0; n < 4; ++n) {
      if (auto b = run_iteration(stage, history, n, make_iteration(4, n, 0.1, 0.2))) {
        out[overlap].push_back(b->to_json());
      }
    }
  }
  ASSERT_EQ(out[0].size(), 2u);
  EXPECT_EQ(out[0], out[1]);
}

}  // namespace
}  // namespace trails::msm
