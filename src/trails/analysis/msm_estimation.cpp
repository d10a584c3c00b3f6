// Non-reversible and reversible MLE of transition matrices; stationary distributions.
#include "trails/analysis/msm_estimation.h"

#include <cmath>
#include <complex>
#include <string>

#include <Eigen/Eigenvalues>

#include "trails/core/error.h"

namespace trails::analysis {

namespace {

// Square, non-negative, finite, and every row has counts.
Eigen::VectorXd checked_row_sums(const Eigen::Ref<const Eigen::MatrixXd>& C, const char* what) {
  if (C.rows() != C.cols() || C.rows() == 0)
    throw core::InputError(std::string(what) + ": expected a non-empty square count matrix, got " +
                           std::to_string(C.rows()) + " x " + std::to_string(C.cols()));
  for (Eigen::Index i = 0; i < C.rows(); ++i)
    for (Eigen::Index j = 0; j < C.cols(); ++j)
      if (!(C(i, j) >= 0.0) || !std::isfinite(C(i, j)))
        throw core::InputError(std::string(what) + ": expected finite counts >= 0, got " +
                               std::to_string(C(i, j)) + " at (" + std::to_string(i) + ", " +
                               std::to_string(j) + ")");
  Eigen::VectorXd c = C.rowwise().sum();
  for (Eigen::Index i = 0; i < c.size(); ++i)
    if (!(c(i) > 0.0))
      throw core::InputError(std::string(what) + ": row " + std::to_string(i) +
                             " has no counts; restrict to the largest connected set first");
  return c;
}

}  // namespace

Eigen::MatrixXd nonreversible_mle(const Eigen::Ref<const Eigen::MatrixXd>& C) {
  const Eigen::VectorXd c = checked_row_sums(C, "nonreversible_mle");
  return c.cwiseInverse().asDiagonal() * C;
}

ReversibleMle reversible_mle(const Eigen::Ref<const Eigen::MatrixXd>& C,
                             const ReversibleMleOptions& options) {
  const Eigen::VectorXd c = checked_row_sums(C, "reversible_mle");
  if (!(options.tol > 0.0) || options.max_iterations < 0)
    throw core::InputError("reversible_mle: expected tol > 0 and max_iterations >= 0, got tol = " +
                           std::to_string(options.tol) +
                           ", max_iterations = " + std::to_string(options.max_iterations));
  const Eigen::Index n = C.rows();
  const Eigen::MatrixXd S = C + C.transpose();
  Eigen::MatrixXd X = S;
  Eigen::VectorXd x = X.rowwise().sum();
  Eigen::VectorXd pi = x / x.sum();
  ReversibleMle out;
  while (out.iterations < options.max_iterations) {
    const Eigen::VectorXd q = c.cwiseQuotient(x);
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = i; j < n; ++j) {
        const double v = S(i, j) > 0.0 ? S(i, j) / (q(i) + q(j)) : 0.0;
        X(i, j) = v;
        X(j, i) = v;  // keeps X exactly symmetric
      }
    ++out.iterations;
    x = X.rowwise().sum();
    const Eigen::VectorXd pi_new = x / x.sum();
    const double change = (pi_new - pi).cwiseAbs().maxCoeff();
    pi = pi_new;
    if (change < options.tol) {
      out.converged = true;
      break;
    }
  }
  out.T = x.cwiseInverse().asDiagonal() * X;
  out.pi = pi;
  return out;
}

Eigen::VectorXd stationary_distribution(const Eigen::Ref<const Eigen::MatrixXd>& T) {
  if (T.rows() != T.cols() || T.rows() == 0)
    throw core::InputError("stationary_distribution: expected a non-empty square matrix, got " +
                           std::to_string(T.rows()) + " x " + std::to_string(T.cols()));
  const Eigen::MatrixXd Tt = T.transpose();
  Eigen::EigenSolver<Eigen::MatrixXd> solver(Tt, true);
  if (solver.info() != Eigen::Success)
    throw core::InputError("stationary_distribution: eigen-decomposition did not converge");
  Eigen::Index best = 0;
  for (Eigen::Index k = 1; k < Tt.rows(); ++k)
    if (std::abs(solver.eigenvalues()(k) - 1.0) < std::abs(solver.eigenvalues()(best) - 1.0))
      best = k;
  const Eigen::VectorXd v = solver.eigenvectors().col(best).real();
  const double total = v.sum();
  if (!(std::abs(total) > 0.0))
    throw core::InputError("stationary_distribution: the eigenvector for eigenvalue 1 sums to 0");
  return v / total;
}

}  // namespace trails::analysis
