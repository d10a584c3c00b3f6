// Maximum-likelihood transition matrices from count matrices, and stationary distributions.
// Pure numerics: inputs are read-only, results are values, nothing is logged. Count matrices
// should be restricted to a connected set first (counting.h); every row needs counts.
// Cost: non-reversible O(n^2); reversible O(n^2) per fixed-point iteration; stationary O(n^3).
// Throws core::InputError for non-square or negative matrices and rows without counts.
#pragma once

#include <Eigen/Core>

namespace trails::analysis {

// T_ij = C_ij / sum_j C_ij (Prinz et al. 2011, eq. 9).
Eigen::MatrixXd nonreversible_mle(const Eigen::Ref<const Eigen::MatrixXd>& C);

struct ReversibleMleOptions {
  double tol = 1e-12;       // stop when max_i |pi_i(new) - pi_i(old)| < tol
  int max_iterations = 1000000;
};

struct ReversibleMle {
  Eigen::MatrixXd T;        // row-stochastic, pi_i T_ij = pi_j T_ji to rounding
  Eigen::VectorXd pi;       // stationary distribution of T, sums to 1
  int iterations = 0;       // fixed-point updates performed
  bool converged = false;   // false: max_iterations reached; T and pi are the last iterate
};

// Reversible MLE by the fixed-point iteration of Bowman et al. 2009 / Prinz et al. 2011:
// X = C + C^T initially; then repeatedly x_i = sum_j X_ij and
// X_ij <- (C_ij + C_ji) / (c_i / x_i + c_j / x_j) with c_i = sum_j C_ij; finally T = X / rowsum,
// pi = x / sum(x). Non-convergence is reported in the result, not thrown.
ReversibleMle reversible_mle(const Eigen::Ref<const Eigen::MatrixXd>& C,
                             const ReversibleMleOptions& options = {});

// The left eigenvector of T for the eigenvalue closest to 1, normalised to sum 1.
Eigen::VectorXd stationary_distribution(const Eigen::Ref<const Eigen::MatrixXd>& T);

}  // namespace trails::analysis
