// PCCA+ on a nearly block-diagonal reversible chain recovers the blocks, their populations and a
// nearly diagonal coarse-grained transition matrix; memberships form a partition of unity.
#include "trails/analysis/pcca.h"

#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "trails/core/error.h"
#include "trails/core/rng.h"

using namespace trails::analysis;

namespace {

// Symmetric weights: O(1) inside blocks, eps across; T = W / rowsum is reversible, pi ∝ rowsum.
MsmModel block_model(const std::vector<int>& sizes, double eps, std::uint64_t seed) {
  std::vector<int> block;
  for (std::size_t b = 0; b < sizes.size(); ++b)
    for (int k = 0; k < sizes[b]; ++k) block.push_back(static_cast<int>(b));
  const int n = static_cast<int>(block.size());
  trails::core::Rng rng(seed);
  Eigen::MatrixXd W(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = i; j < n; ++j) {
      const double w = (block[i] == block[j] ? 1.0 : eps) * (1.0 + rng.uniform());
      W(i, j) = W(j, i) = w;
    }
  const Eigen::VectorXd r = W.rowwise().sum();
  Eigen::MatrixXd T = r.cwiseInverse().asDiagonal() * W;
  return MsmModel(T, 1.0, true, {}, Eigen::VectorXd(r / r.sum()));
}

}  // namespace

TEST(Pcca, RecoversBlocksOfNearlyBlockDiagonalChain) {
  const std::vector<int> sizes = {3, 4, 2, 5};
  const auto model = block_model(sizes, 1e-3, 4);
  for (bool optimize : {false, true}) {
    const auto p = pcca(model, 4, {.optimize = optimize});
    ASSERT_EQ(p.memberships.rows(), 14);
    EXPECT_LT((p.memberships.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-12);
    EXPECT_GE(p.memberships.minCoeff(), 0.0);
    int start = 0;
    std::set<int> labels;
    for (int size : sizes) {
      const int label = p.assignments[start];
      labels.insert(label);
      for (int k = start; k < start + size; ++k) {
        EXPECT_EQ(p.assignments[k], label) << "state " << k << " optimize " << optimize;
        EXPECT_GT(p.memberships(k, label), 0.97) << "state " << k << " optimize " << optimize;
      }
      EXPECT_NEAR(p.populations(label), model.stationary_distribution().segment(start, size).sum(),
                  1e-15);
      EXPECT_NEAR(p.coarse_stationary(label), p.populations(label), 0.02);
      EXPECT_GT(p.coarse_transition(label, label), 0.99);
      start += size;
    }
    EXPECT_EQ(labels.size(), 4u);
    EXPECT_LT((p.coarse_transition.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-10);
    EXPECT_LE(p.crispness, 4.0 + 1e-9);
    EXPECT_GT(p.crispness, 3.8);
    if (optimize) {
      EXPECT_GT(p.iterations, 0);
    }
  }
}

TEST(Pcca, OptimisationDoesNotLowerCrispness) {
  const auto model = block_model({4, 4, 4}, 0.05, 9);  // fuzzier blocks
  const auto isa = pcca(model, 3, {.optimize = false});
  const auto opt = pcca(model, 3);
  EXPECT_GE(opt.crispness, isa.crispness - 1e-12);
  EXPECT_THROW(pcca(model, 1), trails::core::InputError);
  EXPECT_THROW(pcca(model, 12), trails::core::InputError);
}
