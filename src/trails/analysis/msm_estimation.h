// Maximum-likelihood transition matrices from count matrices, and stationary distributions.
// Pure numerics: inputs are read-only, results are values, nothing is logged. Count matrices
// should be restricted to a connected set first (counting.h); every row needs counts.
// Cost: non-reversible O(n^2); reversible O(n^2) to read C, then O(nnz) per fixed-point update
// and one sparse (or, for dense patterns, dense) Cholesky factorisation per Newton step;
// stationary O(n^3). Everything is serial, so results are the same bits on any machine load.
// Throws core::InputError for non-square or negative matrices and rows without counts.
#pragma once

#include <Eigen/Core>

namespace trails::analysis {

// T_ij = C_ij / sum_j C_ij (Prinz et al. 2011, eq. 9).
Eigen::MatrixXd nonreversible_mle(const Eigen::Ref<const Eigen::MatrixXd>& C);

enum class ReversibleMleMethod {
  Newton,      // Newton steps on the convex dual, then fixed-point updates until the test passes
  FixedPoint,  // the plain fixed-point iteration only (reference; slow on slowly mixing chains)
};

struct ReversibleMleOptions {
  double tol = 1e-12;  // converged when one fixed-point update changes pi by < tol (max-abs)
  int max_iterations = 1000000;  // bound on Newton steps + fixed-point updates together
  ReversibleMleMethod method = ReversibleMleMethod::Newton;
};

struct ReversibleMle {
  Eigen::MatrixXd T;       // row-stochastic, pi_i T_ij = pi_j T_ji to rounding
  Eigen::VectorXd pi;      // stationary distribution of T, sums to 1
  int iterations = 0;      // Newton steps + fixed-point updates performed
  int newton_steps = 0;    // of which Newton steps
  bool converged = false;  // false: max_iterations reached; T and pi are the last iterate
};

// Reversible MLE: maximises sum_ij C_ij log T_ij over reversible T whose zero pattern is that of
// C + C^T. The optimum is the fixed point of Bowman et al. 2009 / Prinz et al. 2011:
// with S = C + C^T, c_i = sum_j C_ij and x_i = sum_j X_ij,
//   X_ij <- S_ij / (c_i / x_i + c_j / x_j),   T = X / rowsum,   pi = x / sum(x).
// Method Newton (default) finds it by Newton's method on the convex dual in y_i = log(c_i / x_i)
// (G(y) = 1/2 sum_ij S_ij log(e^y_i + e^y_j) - sum_i c_i y_i; its Hessian is a weighted graph
// Laplacian; backtracking line search; cf. Trendelkamp-Schroer et al., JCP 143, 174101 (2015)),
// then applies fixed-point updates from there. Either method stops at the first fixed-point
// update that changes pi by less than tol in every component (the documented test, identical
// for both methods); the returned T and pi are that update's. If S's graph is not connected the
// dual has no unique optimum and the plain fixed-point iteration is used. On badly scaled
// problems (pi spanning ~10 orders of magnitude) Newton may stop early; the fixed-point
// iteration then finishes at its own (slow) rate. Non-convergence
// (max_iterations reached) is reported in the result, not thrown.
ReversibleMle reversible_mle(const Eigen::Ref<const Eigen::MatrixXd>& C,
                             const ReversibleMleOptions& options = {});

// The left eigenvector of T for the eigenvalue closest to 1, normalised to sum 1.
Eigen::VectorXd stationary_distribution(const Eigen::Ref<const Eigen::MatrixXd>& T);

}  // namespace trails::analysis
