// RiteWeight against known answers. Segments are one-step transitions of a known Markov chain
// whose start states are drawn far from equilibrium; each state is one point (its index on a
// line), every segment has its own start and end frame (duplicated positions, as the pool of
// starts and ends in the reference). Identical points always share a cluster, so segments that
// start in one state keep their relative weights, and the exact fixed point is the stationary
// distribution pi_hat of the sample's own transition matrix T_hat_ij = n_ij / n_i (for any
// clustering, stationary weights balance every cluster's flux). The tests compare with pi_hat
// tightly and with the chain's true pi within the sampling error of pi_hat.
#include "trails/analysis/riteweight.h"

#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include "trails/core/error.h"
#include "trails/core/rng.h"

using namespace trails::analysis;
using trails::core::InputError;
using trails::core::Rng;

namespace {

struct Sample {
  RowMatrix frames;  // 2 per segment: start, end (the state index as the coordinate)
  std::vector<std::int64_t> starts, ends;
  std::vector<int> start_state;
  Eigen::MatrixXd counts;  // n_ij of the sample
};

int draw(const Eigen::RowVectorXd& p, Rng& rng) {
  double u = rng.uniform();
  for (int i = 0; i < p.size(); ++i) {
    u -= p(i);
    if (u < 0) return i;
  }
  return static_cast<int>(p.size()) - 1;
}

// shared_frames: one frame per state that every segment refers to (fast for many segments);
// otherwise two frames per segment.
Sample sample_chain(const Eigen::MatrixXd& P, const Eigen::RowVectorXd& start, int n,
                    std::uint64_t seed, bool shared_frames = false) {
  Rng rng(seed);
  Sample s;
  s.frames.resize(shared_frames ? P.rows() : 2 * n, 1);
  for (Eigen::Index i = 0; shared_frames && i < P.rows(); ++i)
    s.frames(i, 0) = static_cast<double>(i);
  s.counts = Eigen::MatrixXd::Zero(P.rows(), P.rows());
  for (int i = 0; i < n; ++i) {
    const int a = draw(start, rng);
    const int b = draw(P.row(a), rng);
    if (shared_frames) {
      s.starts.push_back(a);
      s.ends.push_back(b);
    } else {
      s.frames(2 * i, 0) = a;
      s.frames(2 * i + 1, 0) = b;
      s.starts.push_back(2 * i);
      s.ends.push_back(2 * i + 1);
    }
    s.start_state.push_back(a);
    s.counts(a, b) += 1;
  }
  return s;
}

Eigen::VectorXd stationary(const Eigen::MatrixXd& T) {
  const auto n = T.rows();
  Eigen::MatrixXd a = T.transpose() - Eigen::MatrixXd::Identity(n, n);
  a.row(n - 1).setOnes();
  Eigen::VectorXd b = Eigen::VectorXd::Zero(n);
  b(n - 1) = 1;
  return a.fullPivLu().solve(b);
}

Eigen::VectorXd row_normalised_pi(const Eigen::MatrixXd& counts) {
  Eigen::MatrixXd T = counts;
  for (Eigen::Index i = 0; i < T.rows(); ++i) T.row(i) /= T.row(i).sum();
  return stationary(T);
}

Eigen::VectorXd state_weights(const Sample& s, const std::vector<double>& w, int n_states) {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(n_states);
  for (std::size_t i = 0; i < w.size(); ++i) out(s.start_state[i]) += w[i];
  return out;
}

Eigen::MatrixXd three_state() {
  Eigen::MatrixXd P(3, 3);
  P << 0.8, 0.15, 0.05, 0.1, 0.7, 0.2, 0.05, 0.25, 0.7;
  return P;
}

Eigen::RowVectorXd skewed_start() {
  Eigen::RowVectorXd p(3);
  p << 0.85, 0.1, 0.05;
  return p;
}

// 12 states on a line: right 0.35, left 0.30, stay 0.35 (the walls add their blocked step to
// staying); detailed balance gives pi_s proportional to (0.35 / 0.30)^s = (7/6)^s.
Eigen::MatrixXd line_walk(int n) {
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    P(i, i) = 0.35;
    if (i + 1 < n)
      P(i, i + 1) = 0.35;
    else
      P(i, i) += 0.35;
    if (i > 0)
      P(i, i - 1) = 0.30;
    else
      P(i, i) += 0.30;
  }
  return P;
}

}  // namespace

TEST(RiteWeight, ThreeStateChainRecoversStationaryDistribution) {
  const Sample s = sample_chain(three_state(), skewed_start(), 30000, 11);
  const Eigen::VectorXd exact = row_normalised_pi(s.counts);
  const Eigen::VectorXd truth = stationary(three_state());
  EXPECT_NEAR(truth(0), 0.2807, 1e-4);
  EXPECT_NEAR(truth(1), 0.4035, 1e-4);
  EXPECT_NEAR(truth(2), 0.3158, 1e-4);
  for (const int k : {4, 12, 40}) {
    const auto r =
        riteweight(s.frames, s.starts, s.ends,
                   {.n_clusters = k, .n_iterations = 150, .average_last = 50, .seed = 3});
    const Eigen::VectorXd got = state_weights(s, r.weights, 3);
    // Unweighted, the starts are (0.85, 0.10, 0.05): far from both answers.
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(got(i), exact(i), 1e-6) << "k " << k << " state " << i;
      // pi_hat's sampling error: the rarest start state has ~1500 segments, so each row of
      // T_hat is off by ~sqrt(0.2 * 0.8 / 1500) ~ 0.01 and pi by about as much; 0.02 is 2 sigma.
      EXPECT_NEAR(got(i), truth(i), 0.02) << "k " << k << " state " << i;
    }
    EXPECT_TRUE(r.converged) << "k " << k;
    EXPECT_EQ(r.n_clusters, k);
    EXPECT_EQ(r.drift.size(), 150U);
    EXPECT_GT(r.drift.front(), 0.5);  // the first update moves most of the weight
    EXPECT_LT(r.drift.back(), 1e-10);
  }
}

TEST(RiteWeight, FewClustersRecoverTwelveStateLineWalk) {
  const int n = 12;
  Eigen::RowVectorXd start = Eigen::RowVectorXd::Zero(n);
  for (int i = 0; i < n; ++i) start(i) = i < 3 ? 0.25 : 0.25 / 9.0;  // biased to the left end
  const Sample s = sample_chain(line_walk(n), start, 200000, 5, true);
  const Eigen::VectorXd exact = row_normalised_pi(s.counts);
  Eigen::VectorXd truth(n);
  for (int i = 0; i < n; ++i) truth(i) = std::pow(7.0 / 6.0, i);
  truth /= truth.sum();
  // 4 random centres never resolve 12 states at once; the re-randomised clusterings do.
  const auto r =
      riteweight(s.frames, s.starts, s.ends,
                 {.n_clusters = 4, .n_iterations = 2000, .average_last = 1000, .seed = 8});
  const Eigen::VectorXd got = state_weights(s, r.weights, n);
  for (int i = 0; i < n; ++i) {
    // A finite run averages iterates still approaching the fixed point: 5e-3 of pi_hat.
    EXPECT_NEAR(got(i), exact(i), 5e-3) << "state " << i;
    // Against the true pi: the rarest start states have ~5500 segments, so pi_hat's own error
    // is ~0.005 (the reference's bound is 0.05).
    EXPECT_NEAR(got(i), truth(i), 0.02) << "state " << i;
  }
  EXPECT_GT(std::abs(start(0) - truth(0)), 0.15);  // the start distribution is far off
}

TEST(RiteWeight, SameSeedSameBitsOtherSeedOtherPath) {
  const Sample s = sample_chain(line_walk(12), Eigen::RowVectorXd::Constant(12, 1.0 / 12), 4000, 2);
  const RiteWeightOptions o{.n_clusters = 4, .n_iterations = 200, .average_last = 50, .seed = 21};
  const auto a = riteweight(s.frames, s.starts, s.ends, o);
  RiteWeightOptions threads = o;
  threads.n_threads = 1;
  const auto b = riteweight(s.frames, s.starts, s.ends, threads);
  ASSERT_EQ(a.weights.size(), b.weights.size());
  EXPECT_EQ(std::memcmp(a.weights.data(), b.weights.data(), a.weights.size() * sizeof(double)), 0);
  EXPECT_EQ(a.drift, b.drift);
  RiteWeightOptions other = o;
  other.seed = 22;
  EXPECT_NE(riteweight(s.frames, s.starts, s.ends, other).drift, a.drift);
}

TEST(RiteWeight, PriorWeightsKeepTheirShapeWithinAState) {
  const Sample s = sample_chain(three_state(), skewed_start(), 3000, 4);
  std::vector<double> prior(s.starts.size());
  for (std::size_t i = 0; i < prior.size(); ++i) prior[i] = 1.0 + static_cast<double>(i % 3);
  const auto r = riteweight(
      s.frames, s.starts, s.ends,
      {.n_clusters = 3, .n_iterations = 50, .average_last = 10, .initial_weights = prior});
  // The fixed point is the stationary distribution of the prior-weighted counts.
  Eigen::MatrixXd weighted = Eigen::MatrixXd::Zero(3, 3);
  for (std::size_t i = 0; i < prior.size(); ++i) {
    weighted(s.start_state[i], static_cast<Eigen::Index>(s.frames(s.ends[i], 0))) += prior[i];
  }
  const Eigen::VectorXd exact = row_normalised_pi(weighted);
  const Eigen::VectorXd got = state_weights(s, r.weights, 3);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(got(i), exact(i), 1e-9);
  EXPECT_GT((exact - row_normalised_pi(s.counts)).cwiseAbs().maxCoeff(), 1e-3);  // not the same
  // Segments 0 and j start in one state: their weights keep the prior's ratio.
  for (std::size_t j = 1; j < prior.size(); ++j) {
    if (s.start_state[j] != s.start_state[0]) continue;
    EXPECT_NEAR(r.weights[j] / r.weights[0], prior[j] / prior[0], 1e-9);
  }
}

TEST(RiteWeight, StationaryInputIsAFixedPoint) {
  const Sample s = sample_chain(three_state(), skewed_start(), 3000, 9);
  const Eigen::VectorXd exact = row_normalised_pi(s.counts);
  std::vector<int> per_state(3, 0);
  for (const int a : s.start_state) ++per_state[a];
  std::vector<double> prior;
  for (const int a : s.start_state) prior.push_back(exact(a) / per_state[a]);
  const auto r = riteweight(
      s.frames, s.starts, s.ends,
      {.n_clusters = 2, .n_iterations = 30, .average_last = 30, .initial_weights = prior});
  for (std::size_t i = 0; i < prior.size(); ++i) EXPECT_NEAR(r.weights[i], prior[i], 1e-12);
  for (const double d : r.drift) EXPECT_LT(d, 1e-12);
}

TEST(RiteWeight, DegenerateInputIsRefused) {
  const Sample s = sample_chain(three_state(), skewed_start(), 20, 1);
  const std::vector<std::int64_t> none;
  EXPECT_THROW(riteweight(s.frames, none, none, {}), InputError);
  const std::vector<std::int64_t> short_ends(s.ends.begin(), s.ends.end() - 1);
  EXPECT_THROW(riteweight(s.frames, s.starts, short_ends, {}), InputError);
  std::vector<std::int64_t> outside = s.ends;
  outside[3] = s.frames.rows();
  EXPECT_THROW(riteweight(s.frames, s.starts, outside, {}), InputError);
  RowMatrix nan_frames = s.frames;
  nan_frames(5, 0) = std::nan("");
  EXPECT_THROW(riteweight(nan_frames, s.starts, s.ends, {}), InputError);
  EXPECT_THROW(riteweight(s.frames, s.starts, s.ends, {.n_clusters = 0}), InputError);
  EXPECT_THROW(riteweight(s.frames, s.starts, s.ends, {.n_iterations = 0}), InputError);
  EXPECT_THROW(riteweight(s.frames, s.starts, s.ends, {.learning_rate = 0}), InputError);
  EXPECT_THROW(riteweight(s.frames, s.starts, s.ends, {.average_last = 0}), InputError);
  EXPECT_THROW(riteweight(s.frames, s.starts, s.ends, {.initial_weights = {1.0, 2.0}}), InputError);
  std::vector<double> negative(s.starts.size(), 1.0);
  negative[2] = -1.0;
  EXPECT_THROW(riteweight(s.frames, s.starts, s.ends, {.initial_weights = negative}), InputError);
  EXPECT_THROW(riteweight(s.frames, s.starts, s.ends,
                          {.initial_weights = std::vector<double>(s.starts.size(), 0.0)}),
               InputError);
}

TEST(RiteWeight, ConvergedHeuristic) {
  EXPECT_FALSE(riteweight_converged(std::vector<double>(19, 0.0)));
  std::vector<double> falling(100);
  for (int i = 0; i < 100; ++i) falling[static_cast<std::size_t>(i)] = std::pow(0.8, i);
  EXPECT_TRUE(riteweight_converged(falling));
  EXPECT_FALSE(riteweight_converged(std::vector<double>(100, 0.5)));  // flat: no decrease
  std::vector<double> slow(100, 0.02);
  slow[0] = 1.0;
  EXPECT_FALSE(riteweight_converged(slow));  // decreased but still above 1e-2
}
