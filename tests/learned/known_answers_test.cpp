// Known answers for the four learned models (docs/cvs.md, "Learned models"): each test fails
// if the model, its loss or its CV were wrong.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>

#include "systems.h"
#include "trails/analysis/clustering.h"
#include "trails/analysis/tica.h"
#include "trails/analysis/vamp.h"
#include "trails/learned/pair_covariances.h"

namespace trails::learned {
namespace {

using test::System;

// The exact VAMP-2 of the chain at lag τ, deeptime's convention (the constant included):
// for a chain in its stationary distribution π the Koopman operator of the state indicator
// functions is Π^{1/2} T^τ Π^{-1/2} (T^τ the τ-step transition matrix), so the population score
// is ‖Π^{1/2} T^τ Π^{-1/2}‖²_F = Σ_ij π_i (T^τ)²_ij / π_j (analysis/vamp.h); for this reversible
// T that is 1 + λ₂^{2τ} + λ₃^{2τ}. A CV resolving the three states reaches it up to sampling
// noise; one that misses the faster process falls short by λ₃^{2τ} (≈ 30 % here).
double exact_vamp2(const Eigen::MatrixXd& t, int lag) {
  Eigen::MatrixXd tl = Eigen::MatrixXd::Identity(3, 3);
  for (int i = 0; i < lag; ++i) tl *= t;
  Eigen::EigenSolver<Eigen::MatrixXd> es(t.transpose());
  int one = 0;
  es.eigenvalues().real().maxCoeff(&one);
  Eigen::VectorXd pi = es.eigenvectors().col(one).real();
  pi /= pi.sum();
  return analysis::msm_vamp2_score_stationary(tl, pi);
}

// |corr| of the CV's slowest singular function (the VAMP decomposition of the CV on its
// pairs) with the state index: the raw CV of a 2-D latent space is any linear mix of the slow
// functions, its slowest singular function is the slow process itself (0 ↔ 2 through 1).
double slowest_state_correlation(const System& s, const std::vector<double>& cv, int dim) {
  const analysis::Covariances cov = pair_covariances(cv, dim, s.data.pairs, false);
  const analysis::VampDecomposition v = analysis::vamp_decomposition(cov);
  const auto n = static_cast<Eigen::Index>(s.states.size());
  Eigen::VectorXd f(n), st(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    f[i] = (Eigen::Map<const Eigen::VectorXd>(cv.data() + i * dim, dim) - cov.mean_0)
               .dot(v.left.col(0));
    st[i] = s.states[static_cast<std::size_t>(i)];
  }
  f.array() -= f.mean();
  st.array() -= st.mean();
  return std::abs(f.dot(st) / std::sqrt(f.squaredNorm() * st.squaredNorm()));
}

// |corr| of a 1-D CV with the state index (the chain's states lie on a line, so a CV that
// separates them orders them).
double state_correlation(const System& s, const std::vector<double>& cv) {
  const auto n = static_cast<Eigen::Index>(s.states.size());
  Eigen::VectorXd f = Eigen::Map<const Eigen::VectorXd>(cv.data(), n), st(n);
  for (Eigen::Index i = 0; i < n; ++i) st[i] = s.states[static_cast<std::size_t>(i)];
  f.array() -= f.mean();
  st.array() -= st.mean();
  return std::abs(f.dot(st) / std::sqrt(f.squaredNorm() * st.squaredNorm()));
}

// The VAMP-2 of the CV's three-state discretisation (k-means, k = 3, then the in-sample MSM
// score of analysis/vamp.h): SPIB's CV is a latent space whose clusters are its states, not a
// linear basis of the slow functions, so its states are what is scored. A CV that separates the
// states gives back the true states and the score of the true chain; one that merges two
// states falls short by about λ₃^{2τ}.
double discretised_vamp2(const System& s, const std::vector<double>& cv, int dim) {
  const auto n = static_cast<Eigen::Index>(s.states.size());
  analysis::KMeansOptions km;
  km.k = 3;
  km.seed = 1;
  const auto points = analysis::points_view(cv, n, dim);
  const std::vector<int> label = analysis::assign(analysis::kmeans(points, km), points);
  Eigen::MatrixXd counts = Eigen::MatrixXd::Zero(3, 3);
  for (const auto& [a, b] : s.data.pairs)
    counts(label[static_cast<std::size_t>(a)], label[static_cast<std::size_t>(b)]) += 1;
  Eigen::MatrixXd t = counts;
  for (int i = 0; i < 3; ++i) t.row(i) /= t.row(i).sum();
  return analysis::msm_vamp2_score(t, counts, counts);
}

ModelOptions small(const std::string& kind) {
  ModelOptions o;
  o.kind = kind;
  o.latent_dim = 2;
  o.encoder_hidden_dims = {32};
  o.decoder_hidden_dims = {16};
  o.deep_tica_hidden_dims = {16, 16};
  o.learning_rate = 1e-2;
  o.epochs = 60;
  o.batch_size = 256;
  o.seed = 7;
  return o;
}

TEST(KnownAnswers, VampnetResolvesTheThreeStateChain) {
  const System s = test::three_state_chain(8, 500, 1, 11);
  TrainingRecord record;
  const auto model = train(small("vampnet"), s.data, record);
  const std::vector<double> cv = model->project(s.data.rows);
  const double exact = exact_vamp2(s.transition, 1);
  ASSERT_TRUE(record.vamp2.has_value());
  EXPECT_NEAR(*record.vamp2, exact, 0.05 * exact) << "exact " << exact;
  EXPECT_GT(slowest_state_correlation(s, cv, 2), 0.9);
  EXPECT_LT(record.loss.back(), record.loss.front());
}

TEST(KnownAnswers, SpibResolvesTheThreeStateChain) {
  const System s = test::three_state_chain(8, 500, 1, 11, true);
  ModelOptions o = small("spib");
  o.latent_dim = 1;
  o.spib_n_states = 3;
  TrainingRecord record;
  const auto model = train(o, s.data, record);
  const std::vector<double> cv = model->project(s.data.rows);
  const double exact = exact_vamp2(s.transition, 1);
  EXPECT_NEAR(discretised_vamp2(s, cv, 1), exact, 0.05 * exact) << "exact " << exact;
  EXPECT_GT(state_correlation(s, cv), 0.9);
  EXPECT_EQ(record.spib_final_states, 3);
}

TEST(KnownAnswers, DeepTicaBeatsLinearTicaOnMullerBrown) {
  const System s = test::muller_brown(4, 2000, 5, 3);
  ModelOptions o = small("deep-tica");
  o.latent_dim = 1;
  TrainingRecord record;
  const auto model = train(o, s.data, record);
  const std::vector<double> cv = model->project(s.data.rows);
  analysis::TicaOptions t;
  t.dim = 1;
  const double deep =
      analysis::fit_tica(pair_covariances(cv, 1, s.data.pairs, true), t).eigenvalues[0];
  const double linear =
      analysis::fit_tica(pair_covariances(s.data.rows, 2, s.data.pairs, true), t).eigenvalues[0];
  EXPECT_GE(deep, linear) << "deep " << deep << " linear " << linear;
}

TEST(KnownAnswers, TvaeReconstructionFallsAndBetaReachesTheLoss) {
  const System s = test::three_state_chain(4, 250, 1, 5);
  ModelOptions o = small("tvae");
  o.latent_dim = 1;
  o.epochs = 60;
  TrainingRecord beta1, beta_quarter;
  const auto m1 = train(o, s.data, beta1);
  o.tvae_beta = 0.25;
  const auto m2 = train(o, s.data, beta_quarter);
  EXPECT_LT(beta1.loss.back(), 0.5 * beta1.loss.front());
  // Same seed, same initial weights and first batch: the first epoch's loss differs by
  // 0.75·KL/n_features > 0, so β is in the loss.
  EXPECT_GT(beta1.loss.front(), beta_quarter.loss.front());
  EXPECT_NE(m1->project(s.data.rows), m2->project(s.data.rows));
}

}  // namespace
}  // namespace trails::learned
