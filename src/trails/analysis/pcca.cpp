// PCCA+: inner simplex algorithm for the initial rotation, Nelder-Mead maximisation of the
// crispness objective over the (m-1)^2 free rotation entries, feasible completion of the rotation.
#include "trails/analysis/pcca.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include <Eigen/LU>
#include <Eigen/QR>

#include "trails/core/error.h"

namespace trails::analysis {

namespace {

// Weber & Galliat (2002) inner simplex algorithm: m representative states that span the simplex
// of the eigenvector rows. First the row of largest norm, then repeatedly the row farthest from
// the span of the vertices found so far (Gram-Schmidt on the shifted rows).
std::vector<Eigen::Index> inner_simplex(const Eigen::MatrixXd& X) {
  const Eigen::Index n = X.rows(), m = X.cols();
  std::vector<Eigen::Index> index(static_cast<std::size_t>(m), 0);
  X.rowwise().squaredNorm().maxCoeff(&index[0]);
  Eigen::MatrixXd ortho = X.rowwise() - X.row(index[0]);
  for (Eigen::Index j = 1; j < m; ++j) {
    const Eigen::RowVectorXd temp = ortho.row(index[static_cast<std::size_t>(j - 1)]);
    double max_dist = -1.0;
    for (Eigen::Index l = 0; l < n; ++l) {
      ortho.row(l) -= ortho.row(l).dot(temp) * temp;
      const double dist = ortho.row(l).norm();
      const bool taken = std::find(index.begin(), index.begin() + j, l) != index.begin() + j;
      if (dist > max_dist && !taken) {
        max_dist = dist;
        index[static_cast<std::size_t>(j)] = l;
      }
    }
    if (max_dist > 0.0) ortho /= max_dist;  // the chosen row becomes a unit vector
  }
  return index;
}

// Completes the free block A[1:, 1:] into a feasible rotation (Deuflhard & Weber 2005):
// rows 1.. sum to zero, row 0 makes every membership column's minimum zero, so that X A >= 0
// with constant row sums sum_j A_0j; dividing all of A by that sum gives a partition of unity.
// (Scaling A as a whole keeps X A >= 0; scaling row 0 alone would not.)
Eigen::MatrixXd fill_rotation(const Eigen::MatrixXd& crop, const Eigen::MatrixXd& X) {
  const Eigen::Index m = X.cols();
  Eigen::MatrixXd A(m, m);
  A.bottomRightCorner(m - 1, m - 1) = crop;
  A.bottomLeftCorner(m - 1, 1) = -crop.rowwise().sum();
  const Eigen::MatrixXd tmp = -(X.rightCols(m - 1) * A.bottomRows(m - 1));
  A.row(0) = tmp.colwise().maxCoeff();
  return A / A.row(0).sum();
}

// Crispness: sum_ij A_ji^2 / A_0i = sum_i <chi_i, chi_i>_pi / <chi_i, 1>_pi for pi-orthonormal X
// (Röblitz & Weber 2013, the trace criterion); <= m for feasible A, = m for crisp memberships.
// A degenerate column (A_0i <= 0) gives -inf.
double crispness(const Eigen::MatrixXd& A) {
  double f = 0.0;
  for (Eigen::Index i = 0; i < A.cols(); ++i)
    if (!(A(0, i) > 0.0)) return -std::numeric_limits<double>::infinity();
  for (Eigen::Index i = 0; i < A.cols(); ++i)
    for (Eigen::Index j = 0; j < A.rows(); ++j) f += A(j, i) * A(j, i) / A(0, i);
  return f;
}

// Nelder-Mead (1965) minimisation with the standard coefficients (1, 2, 1/2, 1/2) and the
// initial simplex of scipy's fmin (5% steps, 0.00025 for zero coordinates).
template <class F>
Eigen::VectorXd nelder_mead(F f, const Eigen::VectorXd& x0, int max_iter, double tol,
                            int& iterations) {
  const Eigen::Index d = x0.size();
  std::vector<Eigen::VectorXd> simplex(static_cast<std::size_t>(d + 1), x0);
  for (Eigen::Index k = 0; k < d; ++k) {
    auto& v = simplex[static_cast<std::size_t>(k + 1)];
    v(k) = v(k) != 0.0 ? 1.05 * v(k) : 0.00025;
  }
  std::vector<double> fv(simplex.size());
  for (std::size_t k = 0; k < simplex.size(); ++k) fv[k] = f(simplex[k]);
  std::vector<std::size_t> order(simplex.size());
  iterations = 0;
  for (; iterations < max_iter; ++iterations) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return fv[a] < fv[b]; });
    double fspread = 0.0, xspread = 0.0;
    for (std::size_t k = 1; k < order.size(); ++k) {
      fspread = std::max(fspread, std::abs(fv[order[k]] - fv[order[0]]));
      xspread = std::max(xspread, (simplex[order[k]] - simplex[order[0]]).cwiseAbs().maxCoeff());
    }
    if (fspread <= tol && xspread <= tol) break;
    const std::size_t worst = order.back(), second = order[order.size() - 2], best = order[0];
    Eigen::VectorXd centroid = Eigen::VectorXd::Zero(d);
    for (std::size_t k = 0; k + 1 < order.size(); ++k) centroid += simplex[order[k]];
    centroid /= static_cast<double>(d);
    const Eigen::VectorXd xr = centroid + (centroid - simplex[worst]);
    const double fr = f(xr);
    if (fr < fv[best]) {
      const Eigen::VectorXd xe = centroid + 2.0 * (centroid - simplex[worst]);
      const double fe = f(xe);
      if (fe < fr)
        simplex[worst] = xe, fv[worst] = fe;
      else
        simplex[worst] = xr, fv[worst] = fr;
      continue;
    }
    if (fr < fv[second]) {
      simplex[worst] = xr, fv[worst] = fr;
      continue;
    }
    const bool outside = fr < fv[worst];
    const Eigen::VectorXd xc = outside
                                   ? Eigen::VectorXd(centroid + 0.5 * (xr - centroid))
                                   : Eigen::VectorXd(centroid + 0.5 * (simplex[worst] - centroid));
    const double fc = f(xc);
    if (fc < (outside ? fr : fv[worst])) {
      simplex[worst] = xc, fv[worst] = fc;
      continue;
    }
    for (std::size_t k = 0; k < simplex.size(); ++k) {  // shrink towards the best vertex
      if (k == best) continue;
      simplex[k] = simplex[best] + 0.5 * (simplex[k] - simplex[best]);
      fv[k] = f(simplex[k]);
    }
  }
  std::size_t best = 0;
  for (std::size_t k = 1; k < fv.size(); ++k)
    if (fv[k] < fv[best]) best = k;
  return simplex[best];
}

}  // namespace

Pcca pcca(const MsmModel& model, int m, const PccaOptions& options) {
  const int n = model.n_states();
  if (m < 2 || m >= n)
    throw core::InputError("pcca: expected 2 <= n_metastable < n_states = " + std::to_string(n) +
                           ", got " + std::to_string(m));
  const Eigen::MatrixXd X = model.right_eigenvectors(m);
  const auto vertices = inner_simplex(X);
  Eigen::MatrixXd V(m, m);
  for (int j = 0; j < m; ++j) V.row(j) = X.row(vertices[static_cast<std::size_t>(j)]);
  Eigen::FullPivLU<Eigen::MatrixXd> lu(V);
  if (!lu.isInvertible())
    throw core::InputError(
        "pcca: the inner-simplex vertices are degenerate; the model has fewer "
        "than " +
        std::to_string(m) + " distinguishable metastable sets");
  const Eigen::MatrixXd A0 = lu.inverse();
  Eigen::MatrixXd crop = A0.bottomRightCorner(m - 1, m - 1);
  Pcca out;
  if (options.optimize) {
    const int dim = (m - 1) * (m - 1);
    const int max_iter = options.max_iterations >= 0 ? options.max_iterations : 200 * dim;
    auto objective = [&](const Eigen::VectorXd& v) {
      const Eigen::MatrixXd A =
          fill_rotation(Eigen::Map<const Eigen::MatrixXd>(v.data(), m - 1, m - 1), X);
      const double f = crispness(A);
      return std::isfinite(f) ? -f : std::numeric_limits<double>::infinity();
    };
    const Eigen::VectorXd start = Eigen::Map<const Eigen::VectorXd>(crop.data(), dim);
    const Eigen::VectorXd best =
        nelder_mead(objective, start, max_iter, options.tolerance, out.iterations);
    crop = Eigen::Map<const Eigen::MatrixXd>(best.data(), m - 1, m - 1);
  }
  const Eigen::MatrixXd A = fill_rotation(crop, X);
  out.crispness = crispness(A);
  // Rounding and the row-0 normalisation can leave tiny negative entries: clip and renormalise.
  Eigen::MatrixXd chi = (X * A).cwiseMax(0.0);
  const Eigen::VectorXd row_sums = chi.rowwise().sum();
  chi = row_sums.cwiseInverse().asDiagonal() * chi;
  out.memberships = chi;
  out.assignments.resize(static_cast<std::size_t>(n));
  out.sets.assign(static_cast<std::size_t>(m), {});
  out.populations = Eigen::VectorXd::Zero(m);
  const Eigen::VectorXd& pi = model.stationary_distribution();
  for (int i = 0; i < n; ++i) {
    Eigen::Index arg = 0;
    chi.row(i).maxCoeff(&arg);
    out.assignments[static_cast<std::size_t>(i)] = static_cast<int>(arg);
    out.sets[static_cast<std::size_t>(arg)].push_back(i);
    out.populations(arg) += pi(i);
  }
  out.coarse_stationary = chi.transpose() * pi;
  out.coarse_transition = coarse_transition_matrix(model.transition_matrix(), pi, chi);
  return out;
}

Eigen::MatrixXd coarse_transition_matrix(const Eigen::Ref<const Eigen::MatrixXd>& T,
                                         const Eigen::Ref<const Eigen::VectorXd>& pi,
                                         const Eigen::Ref<const Eigen::MatrixXd>& chi) {
  if (T.rows() != T.cols() || T.rows() != pi.size() || chi.rows() != T.rows()) {
    throw core::InputError("coarse transition matrix: T is " + std::to_string(T.rows()) + " x " +
                           std::to_string(T.cols()) + ", pi has " + std::to_string(pi.size()) +
                           " entries and the memberships " + std::to_string(chi.rows()) + " rows");
  }
  const Eigen::MatrixXd D = pi.asDiagonal();
  const Eigen::MatrixXd W = chi.transpose() * D * chi;
  return W.colPivHouseholderQr().solve(chi.transpose() * D * T * chi);
}

}  // namespace trails::analysis
