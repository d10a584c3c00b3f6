// Known-answer tests of the MSM-guided spawner's weighting (docs/spawning.md, "MSM-guided
// spawner") on a hand-made two-state MSM plus one frontier microstate. Every expected weight is
// derived by hand below, so removing any factor of b_i = pi_i lev_i sigma_i + alpha/sqrt(c_i+1)
// (or the division by the pool frames of a microstate) changes the result.
#include "trails/spawners/msm_spawner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "trails/config/campaign_config.h"
#include "trails/core/rng.h"
#include "trails/spawners/density_spawner.h"

namespace trails::spawners {
namespace {

// Three microstates on a line (cv_dim 1): centres 0, 10, 20. States 0 and 1 are the active set;
// state 2 is outside it (a frontier state).
//   T = [[0.9, 0.1], [0.2, 0.8]]  ->  pi = (2/3, 1/3)  (pi_0 * 0.1 = pi_1 * 0.2)
//   counts_per_state c = (8, 3)
//   psi_2 (eigenvalue 0.7): (1, -2), scaled so that sum_i pi_i psi_i^2 = 2/3 + 4/3 = 2 -> 1:
//         (1/sqrt2, -2/sqrt2). A second, made-up column (0.3, -0.6) for L = 2.
msm::MsmBuild hand_made_msm() {
  msm::MsmBuild b;
  auto clustering = std::make_shared<analysis::ClusterModel>();
  clustering->centres.resize(3, 1);
  clustering->centres << 0.0, 10.0, 20.0;
  b.clustering = clustering;
  b.n_microstates = 3;
  b.active_set = {0, 1};
  b.pi = {2.0 / 3.0, 1.0 / 3.0};
  b.T.resize(2, 2);
  b.T << 0.9, 0.1, 0.2, 0.8;
  b.counts_per_state = {8.0, 3.0};
  b.eigenvectors.resize(2, 2);
  b.eigenvectors << 1.0 / std::sqrt(2.0), 0.3, -2.0 / std::sqrt(2.0), -0.6;
  return b;
}

// Iteration 0 holds two frames before the pool (pool_first = 2); iteration 1 is the pool:
// two frames in state 0, one in state 1, three in state 2.
constexpr std::int64_t kPoolFirst = 2;

features::FrameHistory hand_made_history() {
  features::FrameHistory h(1);
  const std::vector<features::FrameHistory::WalkerSpan> it0 = {{0, 2}};
  const std::vector<double> cv0 = {0.0, 10.2};
  h.append(0, it0, cv0);
  const std::vector<features::FrameHistory::WalkerSpan> it1 = {{0, 3}, {1, 3}};
  const std::vector<double> cv1 = {0.1, -0.2, 9.8, 19.0, 21.0, 20.5};
  h.append(1, it1, cv1);
  return h;
}

config::CampaignConfig msm_config() {
  config::CampaignConfig c;
  c.n_bins = {10};
  c.spawning.spawn_scheme = "msm";
  c.msm.enabled = true;
  c.msm.spawn_alpha = 0.5;
  c.msm.spawn_leverage = 1.0;
  c.msm.spawn_uncertainty = true;
  return c;
}

// The campaign's make_spawner mapping of the configuration keys.
MsmSpawnerOptions options(const config::CampaignConfig& c) {
  std::optional<std::vector<double>> target;
  if (c.spawning.search_mode == config::SearchMode::Target) target = c.spawning.target;
  return {c.msm.spawn_alpha,           c.msm.spawn_leverage, c.msm.spawn_uncertainty,
          c.spawning.voronoi_clusters, c.random_seed,        target};
}

// s_i = sqrt(sum_j T_ij (1 - T_ij) / (c_i + 1)):
//   s_0 = sqrt((0.09 + 0.09) / 9) = sqrt(0.02),  s_1 = sqrt((0.16 + 0.16) / 4) = sqrt(0.08)
//       = 2 sqrt(0.02);  mean = 1.5 sqrt(0.02)  ->  sigma = (2/3, 4/3).
constexpr double kSigma0 = 2.0 / 3.0;
constexpr double kSigma1 = 4.0 / 3.0;
constexpr double kAlpha = 0.5;
const double kPi0 = 2.0 / 3.0;
const double kPi1 = 1.0 / 3.0;
const double kLev0 = 1.0 / std::sqrt(2.0);  // L = 1: |psi_2(i)|
const double kLev1 = 2.0 / std::sqrt(2.0);
const double kExplore0 = kAlpha / std::sqrt(8.0 + 1.0);  // alpha / sqrt(c_i + 1)
const double kExplore1 = kAlpha / std::sqrt(3.0 + 1.0);

void expect_weights(const std::vector<double>& got, double b0, double b1, double b2) {
  // A frame's weight is its microstate's score over the pool frames of that microstate.
  const std::vector<double> want = {b0 / 2, b0 / 2, b1, b2 / 3, b2 / 3, b2 / 3};
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-12 * want[i]) << "pool frame " << i;
  }
}

TEST(MsmSpawner, GuidedWeightsAreScoreOverPoolMembers) {
  const auto config = msm_config();
  MsmSpawner spawner(options(config));
  const auto history = hand_made_history();
  const auto msm = hand_made_msm();
  const auto w = spawner.frame_weights(history, kPoolFirst, &msm);
  EXPECT_FALSE(spawner.used_fallback());
  // b_0 = (2/3)(1/sqrt2)(2/3) + 0.5/3 = 0.48094..., b_1 = (1/3)(sqrt2)(4/3) + 0.5/2 = 0.87854...
  const double b0 = kPi0 * kLev0 * kSigma0 + kExplore0;
  const double b1 = kPi1 * kLev1 * kSigma1 + kExplore1;
  EXPECT_NEAR(b0, 0.4809368, 1e-6);  // the hand arithmetic, written out
  EXPECT_NEAR(b1, 0.8785394, 1e-6);
  expect_weights(w, b0, b1, kAlpha);
}

TEST(MsmSpawner, WithoutUncertaintySigmaIsOne) {
  auto config = msm_config();
  config.msm.spawn_uncertainty = false;
  MsmSpawner spawner(options(config));
  const auto msm = hand_made_msm();
  const auto w = spawner.frame_weights(hand_made_history(), kPoolFirst, &msm);
  expect_weights(w, kPi0 * kLev0 + kExplore0, kPi1 * kLev1 + kExplore1, kAlpha);
}

TEST(MsmSpawner, LeverageSumsTheFirstLEigenvectors) {
  auto config = msm_config();
  config.msm.spawn_leverage = 2.7;  // integer part: 2
  MsmSpawner spawner(options(config));
  const auto msm = hand_made_msm();
  const auto w = spawner.frame_weights(hand_made_history(), kPoolFirst, &msm);
  expect_weights(w, kPi0 * (kLev0 + 0.3) * kSigma0 + kExplore0,
                 kPi1 * (kLev1 + 0.6) * kSigma1 + kExplore1, kAlpha);

  config.msm.spawn_leverage = 0.0;  // lev = 1
  MsmSpawner flat(options(config));
  expect_weights(flat.frame_weights(hand_made_history(), kPoolFirst, &msm),
                 kPi0 * kSigma0 + kExplore0, kPi1 * kSigma1 + kExplore1, kAlpha);
}

TEST(MsmSpawner, TargetModeDividesByDistanceToTarget) {
  auto config = msm_config();
  config.spawning.search_mode = config::SearchMode::Target;
  config.spawning.target = {10.0};
  MsmSpawner spawner(options(config));
  const auto msm = hand_made_msm();
  const auto w = spawner.frame_weights(hand_made_history(), kPoolFirst, &msm);
  const double b0 = kPi0 * kLev0 * kSigma0 + kExplore0;
  const double b1 = kPi1 * kLev1 * kSigma1 + kExplore1;
  const std::vector<double> cv = {0.1, -0.2, 9.8, 19.0, 21.0, 20.5};
  const std::vector<double> score = {b0 / 2, b0 / 2, b1, kAlpha / 3, kAlpha / 3, kAlpha / 3};
  ASSERT_EQ(w.size(), cv.size());
  for (std::size_t i = 0; i < cv.size(); ++i) {
    const double want = score[i] / (std::abs(cv[i] - 10.0) + 1e-10);
    EXPECT_NEAR(w[i], want, 1e-12 * want) << "pool frame " << i;
  }
}

TEST(MsmSpawner, ChoiceDrawsFromTheseWeightsWithTheSpawnStream) {
  const auto config = msm_config();
  MsmSpawner spawner(options(config));
  const auto history = hand_made_history();
  const auto msm = hand_made_msm();
  const double b0 = kPi0 * kLev0 * kSigma0 + kExplore0;
  const double b1 = kPi1 * kLev1 * kSigma1 + kExplore1;
  const std::vector<double> hand = {b0 / 2, b0 / 2, b1, kAlpha / 3, kAlpha / 3, kAlpha / 3};
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto rng = core::Rng::stream(seed, "spawn", 1);
    auto same = rng;
    const auto rows = spawner.choose(history, kPoolFirst, &msm, 4, rng);
    auto want = spawners::weighted_choice(hand, 4, same);
    for (auto& r : want) r += kPoolFirst;  // global frame indices
    EXPECT_EQ(rows, want) << "seed " << seed;
  }
}

TEST(MsmSpawner, NoModelUsesLeastCountsFallback) {
  auto config = msm_config();
  config.spawning.voronoi_clusters = 3;
  MsmSpawner spawner(options(config));
  const auto history = hand_made_history();
  const auto w = spawner.frame_weights(history, kPoolFirst, nullptr);
  EXPECT_TRUE(spawner.used_fallback());
  // k-means with k = 3 on {0.1, -0.2, 9.8, 19, 21, 20.5} finds the three obvious clusters of
  // populations 2, 1, 3: frame weight 1/c^2.
  const std::vector<double> want = {1.0 / 4, 1.0 / 4, 1.0, 1.0 / 9, 1.0 / 9, 1.0 / 9};
  ASSERT_EQ(w.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(w[i], want[i]) << i;

  auto failed = hand_made_msm();
  failed.note = "fewer than 2 active states";
  spawner.frame_weights(history, kPoolFirst, &failed);
  EXPECT_TRUE(spawner.used_fallback());
}

}  // namespace
}  // namespace trails::spawners
