// The weighted-ensemble resampler and spawner against Trails-MD's known answers
// (docs/kinetics.md): split bookkeeping, zombie equalisation, the bin-balanced deal, the
// per-bin allocation, failed-walker remapping, recycling flux, the Hill-relation estimator, and a
// state round trip that resamples bitwise the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "trails/analysis/hill_mfpt.h"
#include "trails/binning/binner.h"
#include "trails/core/error.h"
#include "trails/spawners/we_resampler.h"
#include "trails/spawners/we_spawner.h"

namespace trails::spawners {
namespace {

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

TEST(WeResampler, LoneFrontierWalkerIsSplitIntoTwoEighths) {
  // Walkers at 5, 6, 7 and 90, two bins on [0, 100], budget 4 (Trails-MD's split bookkeeping).
  const std::vector<double> w = {0.25, 0.25, 0.25, 0.25};
  const std::vector<std::int64_t> labels = {0, 0, 0, 1};
  const auto targets = budget_targets(labels, 2, 4);
  EXPECT_EQ(targets, (std::vector<int>{2, 2}));
  core::Rng rng(1);
  const auto r = we_resample(w, labels, targets, true, rng);
  auto sorted = r.weights;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<double>{0.125, 0.125, 0.25, 0.5}));
  EXPECT_EQ(r.parents[2], 3);  // bin 1 comes second, both children of the frontier walker
  EXPECT_EQ(r.parents[3], 3);
  EXPECT_DOUBLE_EQ(sum(r.weights), 1.0);
}

TEST(WeResampler, ZombieWeightsAreEqualisedToAFourfoldSpread) {
  const std::vector<double> w = {0.4, 1e-21, 1e-21, 1e-21, 1e-21};
  const std::vector<std::int64_t> labels(5, 0);
  core::Rng rng(3);
  const std::vector<int> targets = {4};
  const auto r = we_resample(w, labels, targets, true, rng);
  ASSERT_EQ(r.weights.size(), 4u);
  EXPECT_NEAR(sum(r.weights), 0.4, 1e-15);
  const auto [lo, hi] = std::minmax_element(r.weights.begin(), r.weights.end());
  EXPECT_LE(*hi, 4.0 * *lo);
  EXPECT_GT(*lo, 1e-6);
  double s2 = 0.0;
  for (const double x : r.weights) s2 += (x / 0.4) * (x / 0.4);
  EXPECT_GT(1.0 / s2, 3.0);  // effective sample size
  // Without equalisation (Trails-MD's standalone resampler) the zombies survive the merge.
  core::Rng rng2(3);
  const auto plain = we_resample(w, labels, targets, false, rng2);
  EXPECT_LT(*std::min_element(plain.weights.begin(), plain.weights.end()), 1e-20);
}

TEST(WeResampler, BudgetIsDealtToTheSparsestBinsFirst) {
  // Populations 5, 1, 2: with 4 slots the order is bin 1, bin 2, bin 0, bin 1.
  const std::vector<std::int64_t> labels = {0, 0, 0, 0, 0, 1, 2, 2};
  EXPECT_EQ(budget_targets(labels, 3, 4), (std::vector<int>{1, 2, 1}));
  EXPECT_EQ(budget_targets(labels, 3, 3), (std::vector<int>{1, 1, 1}));
  EXPECT_THROW(budget_targets(labels, 3, 2), core::InputError);
  EXPECT_EQ(per_bin_targets(labels, 3, 4), (std::vector<int>{4, 4, 4}));
}

TEST(WeResampler, RandomWalkersReachTheirTargetsAndConserveWeight) {
  core::Rng gen(7);
  std::vector<double> w;
  std::vector<std::int64_t> labels;
  for (int i = 0; i < 20; ++i) {
    w.push_back(gen.uniform() + 1e-3);
    labels.push_back(i % 4);
  }
  const double total = sum(w);
  core::Rng rng(9);
  const auto r = we_resample(w, labels, per_bin_targets(labels, 4, 3), false, rng);
  EXPECT_EQ(r.weights.size(), 12u);
  EXPECT_NEAR(sum(r.weights), total, 1e-12 * total);
  for (std::size_t k = 0; k < r.parents.size(); ++k) {
    EXPECT_EQ(labels[static_cast<std::size_t>(r.parents[k])], static_cast<std::int64_t>(k / 3));
  }
}

TEST(WeResampler, MergeKeepsTheSurvivorInProportionToWeight) {
  // Two walkers merged to one: the heavy one (0.9) survives about 90 % of the time.
  int heavy = 0;
  core::Rng rng(11);
  for (int trial = 0; trial < 4000; ++trial) {
    const auto r = we_resample(std::vector<double>{0.9, 0.1}, std::vector<std::int64_t>{0, 0},
                               std::vector<int>{1}, true, rng);
    ASSERT_EQ(r.weights.size(), 1u);
    EXPECT_DOUBLE_EQ(r.weights[0], 1.0);
    heavy += r.parents[0] == 0 ? 1 : 0;
  }
  EXPECT_NEAR(heavy / 4000.0, 0.9, 0.02);
}

TEST(WeResampler, ManyEqualWalkersMergeToTheTarget) {
  const std::vector<double> w(100000, 1e-5);
  const std::vector<std::int64_t> labels(w.size(), 0);
  core::Rng rng(5);
  const auto r = we_resample(w, labels, std::vector<int>{4}, true, rng);
  EXPECT_EQ(r.weights.size(), 4u);
  EXPECT_NEAR(sum(r.weights), 1.0, 1e-9);
}

// One iteration of walkers with the given end points (and one earlier frame each).
void add_iteration(features::FrameHistory& h, std::int64_t iteration,
                   const std::vector<double>& ends, const std::vector<std::int64_t>& walkers) {
  std::vector<features::FrameHistory::WalkerSpan> spans;
  std::vector<double> cvs;
  for (std::size_t i = 0; i < ends.size(); ++i) {
    spans.push_back({walkers[i], 2});
    cvs.push_back(ends[i] - 1.0);
    cvs.push_back(ends[i]);
  }
  h.append(iteration, spans, cvs);
}

TEST(WeSpawner, FailedWalkersWeightIsDroppedAndTheRestRenormalised) {
  const binning::UniformGrid grid({10}, {0.0}, {100.0});
  WeSpawner we(WeOptions{});
  we.restore({{"weights", {0.4, 0.3, 0.2, 0.1}},
              {"recycled", {0, 0, 0, 0}},
              {"recycled_walkers", 0},
              {"recycled_flux", nullptr},
              {"basis_frame", nullptr}});
  features::FrameHistory h(1);
  add_iteration(h, 0, {5.0, 25.0, 45.0}, {0, 2, 3});  // walker 1 failed
  core::Rng rng(1);
  const auto chosen = we.choose(h, grid, 3, rng);
  // Three bins, one walker each, one slot each: the weights are the survivors' / 0.7.
  const auto& w = we.weighting()->weights;
  ASSERT_EQ(w.size(), 3u);
  EXPECT_NEAR(w[0], 0.4 / 0.7, 1e-15);
  EXPECT_NEAR(w[1], 0.2 / 0.7, 1e-15);
  EXPECT_NEAR(w[2], 0.1 / 0.7, 1e-15);
  EXPECT_EQ(chosen, (std::vector<std::int64_t>{1, 3, 5}));  // end frames of the live walkers
}

TEST(WeSpawner, RecyclesWalkersInTheTargetToTheFrozenBasis) {
  const binning::UniformGrid grid({10}, {0.0}, {100.0});
  WeSpawner we(WeOptions{false, 4, {{{90.0, 200.0}}}, 0, {}});
  features::FrameHistory h(1);
  add_iteration(h, 0, {5.0, 6.0, 7.0, 95.0}, {0, 1, 2, 3});
  core::Rng rng(2);
  const auto chosen = we.choose(h, grid, 4, rng);
  ASSERT_TRUE(we.weighting()->recycled_flux);
  EXPECT_DOUBLE_EQ(*we.weighting()->recycled_flux, 0.25);  // one walker of four in the sink
  EXPECT_EQ(we.weighting()->recycled_walkers, 1);
  EXPECT_EQ(we.basis_frame(), 0);
  // Every walker now sits in the basis's bin: four slots, one bin; the recycled slots restart
  // from frame 0.
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    EXPECT_EQ(chosen[k] == 0, we.weighting()->recycled[k] == 1);
  }
  EXPECT_NEAR(sum(we.weighting()->weights), 1.0, 1e-12);
  // Nothing arrives next time: flux 0, and the basis stays frame 0 of iteration 0.
  add_iteration(h, 1, {5.0, 6.0, 7.0, 8.0}, {0, 1, 2, 3});
  we.choose(h, grid, 4, rng);
  EXPECT_DOUBLE_EQ(*we.weighting()->recycled_flux, 0.0);
  EXPECT_EQ(we.basis_frame(), 0);
}

TEST(WeSpawner, RestoredStateResamplesBitwiseTheSame) {
  const binning::UniformGrid grid({10}, {0.0}, {100.0});
  WeSpawner a(WeOptions{false, 4, {{{90.0, 200.0}}}, 0, {}});
  features::FrameHistory h(1);
  add_iteration(h, 0, {5.0, 6.0, 7.0, 95.0}, {0, 1, 2, 3});
  core::Rng r0(4);
  a.choose(h, grid, 4, r0);
  WeSpawner b(WeOptions{false, 4, {{{90.0, 200.0}}}, 0, {}});
  b.restore(nlohmann::json::parse(a.state().dump()));
  add_iteration(h, 1, {15.0, 16.0, 37.0, 38.0}, {0, 1, 2, 3});
  core::Rng ra(8), rb(8);
  EXPECT_EQ(a.choose(h, grid, 4, ra), b.choose(h, grid, 4, rb));
  EXPECT_EQ(a.weighting()->weights, b.weighting()->weights);
  EXPECT_EQ(a.state(), b.state());
}

// With an adaptive binning.scheme the resampler bins with the binner fitted to the live end points
// at the start of the call: the per-bin allocation gives target_per_bin walkers to each bin the
// fitted edges make occupied, which here are not the uniform grid's bins.
TEST(WeSpawner, AdaptiveSchemeBinsWithEdgesFittedToTheLiveEnsemble) {
  const binning::UniformGrid grid({6}, {0.0}, {100.0});
  for (const auto scheme : {binning::BinningScheme::Gradient, binning::BinningScheme::Mab}) {
    features::FrameHistory h(1);
    // All in the first of six uniform bins; the fitted edges split them.
    add_iteration(h, 0, {2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 14.0}, {0, 1, 2, 3, 4, 5, 6, 7});
    const auto occupied = [&](binning::Binner& b) {
      std::vector<double> ends;  // the live ensemble: each walker's end frame
      for (std::int64_t g = 1; g < h.frames(); g += 2) ends.push_back(h.point(g)[0]);
      b.fit(ends, grid);
      std::set<std::int64_t> bins;
      for (const double x : ends) bins.insert(b.bin_of(std::vector<double>{x}));
      return static_cast<std::int64_t>(bins.size());
    };
    const binning::BinnerOptions opts{scheme, 20, 1};
    WeOptions o{true, 2, {}, 0, opts};
    WeSpawner we(o);
    core::Rng rng(3);
    const auto chosen = we.choose(h, grid, 0, rng);
    const auto expected = occupied(*binning::make_binner(opts));
    const auto uniform = occupied(*binning::make_binner({}));
    EXPECT_NE(expected, uniform) << "the data should tell the two binnings apart";
    EXPECT_EQ(static_cast<std::int64_t>(chosen.size()), 2 * expected);
    EXPECT_NEAR(sum(we.weighting()->weights), 1.0, 1e-12);
    // The fitted bins are the spawner's state; a copy restored from it resamples the same.
    EXPECT_EQ(we.state().at("binner").at("scheme"), binning::scheme_name(scheme));
    WeSpawner back(o);
    back.restore(nlohmann::json::parse(we.state().dump()));
    EXPECT_EQ(back.state(), we.state());
    add_iteration(h, 1, {2.2, 5.0, 9.0, 13.0}, {0, 1, 2, 3});
    core::Rng ra(9), rb(9);
    EXPECT_EQ(we.choose(h, grid, 0, ra), back.choose(h, grid, 0, rb));
    EXPECT_EQ(we.weighting()->weights, back.weighting()->weights);
  }
}

TEST(WeSpawner, StateOfAnotherBinningSchemeIsRefused) {
  WeSpawner gradient(WeOptions{false, 4, {}, 0, {binning::BinningScheme::Gradient, 20, 1}});
  WeSpawner uniform(WeOptions{});
  EXPECT_THROW(uniform.restore(gradient.state()), core::InputError);
  auto bad = uniform.state();
  bad["version"] = 7;
  EXPECT_THROW(uniform.restore(bad), core::InputError);
}

TEST(HillMfpt, KnownAnswers) {
  const std::vector<double> flat(100, 0.01);
  const auto a = analysis::steady_state_mfpt(flat, 2.0, 0.5);  // τ 2 ps
  ASSERT_TRUE(a.mfpt);
  EXPECT_NEAR(*a.mfpt / 1000.0, 0.2, 1e-12);  // 0.2 ns
  ASSERT_TRUE(a.plateau_ratio);
  EXPECT_NEAR(*a.plateau_ratio, 1.0, 1e-12);
  EXPECT_TRUE(a.converged);
  const std::vector<double> ramp = {0, 0, .01, .02, .1, .1, .1, .1};
  const auto b = analysis::steady_state_mfpt(ramp, 10.0, 0.5);
  EXPECT_NEAR(*b.mfpt / 1000.0, 0.1, 1e-12);
  EXPECT_GT(*analysis::steady_state_mfpt(ramp, 10.0, 0.0).mfpt, *b.mfpt);
  EXPECT_FALSE(b.converged);  // 6 flux events < 10
  EXPECT_FALSE(analysis::steady_state_mfpt(std::vector<double>{0.0}, 1.0, 0.5).mfpt);
}

}  // namespace
}  // namespace trails::spawners
