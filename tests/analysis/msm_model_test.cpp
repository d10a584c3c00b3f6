// CountModel / MsmModel: active sets with original ids, state histogram, eigenvector identities
// (T R = R Λ, L T = Λ L, L R = I, R^T D R = I), propagation in closed form, reversible submodels.
#include "trails/analysis/msm_model.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "support/markov.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

using namespace trails::analysis;
using trails::core::InputError;

namespace {

Eigen::MatrixXd uniform_counts(int n, std::uint64_t seed) {
  trails::core::Rng rng(seed);
  Eigen::MatrixXd C(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) C(i, j) = 1.0 + std::floor(100.0 * rng.uniform());
  return C;
}

}  // namespace

TEST(CountModel, ActiveSetHistogramAndMapping) {
  // States 0,1 talk to each other; 2 -> 3 is one-way; state 4 never visited.
  const std::vector<std::vector<int>> d = {{0, 1, 0, 1, 1, 0}, {2, 3, 3}};
  const auto m = estimate_counts(d, 1, CountMode::Sliding, 5);
  EXPECT_EQ(m.n_states(), 5);
  EXPECT_EQ(m.active_set, (std::vector<int>{0, 1}));
  EXPECT_EQ(m.active_index, (std::vector<int>{0, 1, -1, -1, -1}));
  EXPECT_EQ(m.state_histogram, (Eigen::VectorXd(5) << 3, 3, 1, 2, 0).finished());
  ASSERT_EQ(m.connected_sets.size(), 4u);
  EXPECT_EQ(m.connected_sets[1], (std::vector<int>{2}));  // size-1 sets by smallest id
  const auto mapped = m.map_to_active(d);
  EXPECT_EQ(mapped[1], (std::vector<int>{-1, -1, -1}));
  Eigen::MatrixXd expect(2, 2);
  expect << 0, 2, 2, 1;
  EXPECT_EQ(m.active_counts(), expect);
  EXPECT_THROW(estimate_msm(estimate_counts({{0, 0, 0}}, 1), true), InputError);
}

TEST(MsmModel, TwoStateFromTrajectory) {
  // Pairs: 0->0 x2, 0->1 x1, 1->1 x1, 1->0 x1 → C = [[2,1],[1,1]].
  const auto msm = estimate_msm({{0, 0, 0, 1, 1, 0}}, 1, {.reversible = false});
  EXPECT_NEAR(msm.transition_matrix()(0, 1), 1.0 / 3.0, 1e-15);
  EXPECT_NEAR(msm.transition_matrix()(1, 0), 0.5, 1e-15);
  // pi ∝ (T10, T01) = (1/2, 1/3); lambda2 = 1 - 1/3 - 1/2.
  EXPECT_NEAR(msm.stationary_distribution()(0), 0.6, 1e-12);
  EXPECT_NEAR(msm.eigenvalues()(1), 1.0 / 6.0, 1e-12);
  EXPECT_NEAR(msm.timescales(1)(0), -1.0 / std::log(1.0 / 6.0), 1e-12);
  EXPECT_TRUE(msm.count_model().has_value());
  EXPECT_EQ(msm.active_set(), (std::vector<int>{0, 1}));
}

TEST(MsmModel, ReversibleEigenvectorIdentities) {
  auto msm = estimate_msm(trails::test_support::counts_model_of(uniform_counts(6, 3)), true);
  EXPECT_TRUE(msm.mle_converged());
  const Eigen::MatrixXd& T = msm.transition_matrix();
  const Eigen::MatrixXd R = msm.right_eigenvectors(), L = msm.left_eigenvectors();
  const Eigen::MatrixXd Lam = msm.eigenvalues().asDiagonal();
  EXPECT_LT((T * R - R * Lam).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((L * T - Lam * L).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((L * R - Eigen::MatrixXd::Identity(6, 6)).cwiseAbs().maxCoeff(), 1e-12);
  const Eigen::MatrixXd D = msm.stationary_distribution().asDiagonal();
  EXPECT_LT((R.transpose() * D * R - Eigen::MatrixXd::Identity(6, 6)).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((R.col(0).array() - 1.0).abs().maxCoeff(), 1e-12);
  EXPECT_LT((L.row(0).transpose() - msm.stationary_distribution()).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_EQ(msm.right_eigenvectors(3).cols(), 3);
  EXPECT_EQ(msm.left_eigenvectors(3).rows(), 3);
  EXPECT_THROW(msm.right_eigenvectors(7), InputError);
}

TEST(MsmModel, NonReversibleEigenvectorIdentities) {
  // Upper-triangular-dominant chain with real spectrum: a birth-death chain with unequal rates.
  Eigen::MatrixXd T(3, 3);
  T << 0.7, 0.3, 0.0, 0.1, 0.6, 0.3, 0.0, 0.2, 0.8;
  const MsmModel msm(T, 2.0, false);
  const Eigen::MatrixXd R = msm.right_eigenvectors(), L = msm.left_eigenvectors();
  const Eigen::MatrixXd Lam = msm.eigenvalues().asDiagonal();
  EXPECT_LT((T * R - R * Lam).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((L * R - Eigen::MatrixXd::Identity(3, 3)).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((L.row(0).transpose() - msm.stationary_distribution()).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_NEAR(msm.timescales(2)(0), -2.0 / std::log(std::abs(msm.eigenvalues()(1))), 1e-12);
}

TEST(MsmModel, PropagateTwoStateClosedForm) {
  Eigen::MatrixXd T(2, 2);
  T << 0.9, 0.1, 0.2, 0.8;
  const MsmModel msm(T, 1.0, true, {}, Eigen::Vector2d(2.0 / 3.0, 1.0 / 3.0));
  // p_0(k) = pi_0 + (1 - pi_0) 0.7^k starting in state 0.
  const Eigen::VectorXd p = msm.propagate(Eigen::Vector2d(1, 0), 5);
  EXPECT_NEAR(p(0), 2.0 / 3.0 + (1.0 / 3.0) * std::pow(0.7, 5), 1e-14);
  EXPECT_NEAR(p.sum(), 1.0, 1e-14);
  EXPECT_THROW(msm.propagate(Eigen::Vector3d(1, 0, 0), 1), InputError);
}

TEST(MsmModel, ReversibleSubmodelKeepsDetailedBalance) {
  const auto msm = estimate_msm(trails::test_support::counts_model_of(uniform_counts(5, 8)), true);
  const std::vector<int> keep = {0, 2, 3};
  const auto sub = msm.submodel(keep);
  EXPECT_EQ(sub.active_set(), keep);
  const Eigen::MatrixXd& T = sub.transition_matrix();
  const Eigen::VectorXd& pi = sub.stationary_distribution();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(pi(i) * T(i, j), pi(j) * T(j, i), 1e-15);
  EXPECT_LT(((pi.transpose() * T).transpose() - pi).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_THROW(msm.submodel(std::vector<int>{2, 1}), InputError);
}

TEST(MsmModel, RejectsNonStochastic) {
  Eigen::MatrixXd T(2, 2);
  T << 0.5, 0.4, 0.5, 0.5;
  EXPECT_THROW(MsmModel(T, 1.0, false), InputError);
}
