// Sorted eigenvalues (general and symmetrised-reversible), implied timescales, ITS sweep.
#include "trails/analysis/spectral.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numeric>
#include <string>

#include <Spectra/MatOp/DenseSymMatProd.h>
#include <Spectra/SymEigsSolver.h>
#include <Eigen/Eigenvalues>

#include "trails/analysis/matrix_checks.h"
#include "trails/core/error.h"
#include "trails/core/thread_pool.h"

namespace trails::analysis {

namespace {

// Real parts of `values`, ordered by modulus descending (stable, so ties keep solver order).
template <class Values>
Eigen::VectorXd sorted_by_modulus(const Values& values) {
  std::vector<Eigen::Index> order(static_cast<std::size_t>(values.size()));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    return std::abs(values(a)) > std::abs(values(b));
  });
  Eigen::VectorXd out(values.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    out(static_cast<Eigen::Index>(k)) = std::real(values(order[k]));
  return out;
}

}  // namespace

Eigen::VectorXd eigenvalues(const Eigen::Ref<const Eigen::MatrixXd>& T) {
  require_square(T, "eigenvalues");
  Eigen::EigenSolver<Eigen::MatrixXd> solver(T, false);
  if (solver.info() != Eigen::Success)
    throw core::InputError("eigenvalues: eigen-decomposition did not converge");
  return sorted_by_modulus(solver.eigenvalues());
}

Eigen::VectorXd eigenvalues(const Eigen::Ref<const Eigen::MatrixXd>& T,
                            const Eigen::Ref<const Eigen::VectorXd>& pi) {
  require_square(T, "eigenvalues");
  if (pi.size() != T.rows())
    throw core::InputError("eigenvalues: expected pi of size " + std::to_string(T.rows()) +
                           ", got " + std::to_string(pi.size()));
  for (Eigen::Index i = 0; i < pi.size(); ++i)
    if (!(pi(i) > 0.0))
      throw core::InputError("eigenvalues: expected pi > 0, got " + std::to_string(pi(i)) + " at " +
                             std::to_string(i));
  const Eigen::VectorXd s = pi.cwiseSqrt();
  Eigen::MatrixXd S = s.asDiagonal() * T * s.cwiseInverse().asDiagonal();
  S = (0.5 * (S + S.transpose())).eval();  // exact symmetry; differences are rounding only
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(S, Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success)
    throw core::InputError("eigenvalues: eigen-decomposition did not converge");
  return sorted_by_modulus(solver.eigenvalues());
}

Eigen::VectorXd leading_eigenvalues(const Eigen::Ref<const Eigen::MatrixXd>& T,
                                    const Eigen::Ref<const Eigen::VectorXd>& pi, int count) {
  require_square(T, "leading_eigenvalues");
  const auto n = static_cast<int>(T.rows());
  if (count < 1 || count > n)
    throw core::InputError("leading_eigenvalues: expected 1 <= count <= " + std::to_string(n) +
                           ", got " + std::to_string(count));
  if (n <= 2 * count + 20) return eigenvalues(T, pi).head(count);
  if (pi.size() != T.rows() || !(pi.minCoeff() > 0.0))
    throw core::InputError("leading_eigenvalues: expected pi > 0 of size " + std::to_string(n));
  const Eigen::VectorXd s = pi.cwiseSqrt();
  Eigen::MatrixXd S = s.asDiagonal() * T * s.cwiseInverse().asDiagonal();
  S = (0.5 * (S + S.transpose())).eval();
  Spectra::DenseSymMatProd<double> op(S);
  const int ncv = std::min(n, std::max(2 * count + 1, 20));
  Spectra::SymEigsSolver<Spectra::DenseSymMatProd<double>> solver(op, count, ncv);
  solver.init();
  solver.compute(Spectra::SortRule::LargestMagn, 1000, 1e-12, Spectra::SortRule::LargestMagn);
  if (solver.info() != Spectra::CompInfo::Successful) return eigenvalues(T, pi).head(count);
  return sorted_by_modulus(solver.eigenvalues());
}

Eigen::VectorXd timescales_from_eigenvalues(const Eigen::Ref<const Eigen::VectorXd>& eigenvalues,
                                            double lag, int k) {
  if (!(lag > 0.0))
    throw core::InputError("implied_timescales: expected lag > 0, got " + std::to_string(lag));
  if (k < 0 || k > eigenvalues.size() - 1)
    throw core::InputError(
        "implied_timescales: expected 0 <= k <= " + std::to_string(eigenvalues.size() - 1) +
        " (n_states - 1), got " + std::to_string(k));
  Eigen::VectorXd t(k);
  for (int i = 0; i < k; ++i) {
    const double m = std::abs(eigenvalues(i + 1));
    if (m >= 1.0)
      t(i) = std::numeric_limits<double>::infinity();
    else if (m == 0.0)
      t(i) = 0.0;
    else
      t(i) = -lag / std::log(m);
  }
  return t;
}

Eigen::VectorXd implied_timescales(const Eigen::Ref<const Eigen::MatrixXd>& T, double lag, int k) {
  return timescales_from_eigenvalues(eigenvalues(T), lag, k);
}

Eigen::VectorXd implied_timescales(const Eigen::Ref<const Eigen::MatrixXd>& T,
                                   const Eigen::Ref<const Eigen::VectorXd>& pi, double lag, int k) {
  return timescales_from_eigenvalues(eigenvalues(T, pi), lag, k);
}

ItsSweep implied_timescales_sweep(const std::vector<std::vector<int>>& dtrajs,
                                  std::span<const int> lags, int k, int n_states, CountMode mode,
                                  const ReversibleMleOptions& options, int n_threads) {
  if (k < 1)
    throw core::InputError("implied_timescales_sweep: expected k >= 1, got " + std::to_string(k));
  for (std::size_t a = 0; a < lags.size(); ++a)
    if (lags[a] < 1)
      throw core::InputError("implied_timescales_sweep: expected lags >= 1, got " +
                             std::to_string(lags[a]) + " at position " + std::to_string(a));
  ItsSweep out;
  out.lags.assign(lags.begin(), lags.end());
  const auto n_lags = static_cast<Eigen::Index>(lags.size());
  out.timescales = Eigen::MatrixXd::Constant(n_lags, k, std::numeric_limits<double>::quiet_NaN());
  out.n_active.assign(lags.size(), 0);
  out.converged.assign(lags.size(), 0);
  // One lag per chunk. Bad input (state ids) throws inside a chunk; the pool rethrows it.
  core::default_pool().parallel_for(
      lags.size(), 1,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t a = begin; a < end; ++a) {
          const Eigen::MatrixXd C = count_matrix(dtrajs, lags[a], n_states, mode);
          const std::vector<int> active = largest_connected_set(C);
          out.n_active[a] = static_cast<int>(active.size());
          if (active.size() < 2) continue;
          const auto est = reversible_mle(restrict_to_set(C, active), options);
          out.converged[a] = est.converged ? 1 : 0;
          const int kk = std::min(k, static_cast<int>(active.size()) - 1);
          constexpr std::size_t kLargeModel = 1000;  // beyond this, partial Lanczos spectra
          const Eigen::VectorXd ev = active.size() > kLargeModel
                                         ? leading_eigenvalues(est.T, est.pi, kk + 1)
                                         : eigenvalues(est.T, est.pi);
          out.timescales.row(static_cast<Eigen::Index>(a)).head(kk) =
              timescales_from_eigenvalues(ev, static_cast<double>(lags[a]), kk).transpose();
        }
      },
      n_threads);
  return out;
}

}  // namespace trails::analysis
