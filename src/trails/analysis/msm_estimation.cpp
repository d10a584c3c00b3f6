// Non-reversible and reversible MLE of transition matrices; stationary distributions.
#include "trails/analysis/msm_estimation.h"

#include <cmath>
#include <complex>
#include <numeric>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

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

namespace {

// S = C + C^T as compressed rows (both triangles and the diagonal), entries S_ij > 0 only.
struct SymmetricPattern {
  Eigen::Index n = 0;
  std::vector<Eigen::Index> start;  // row i is [start[i], start[i + 1])
  std::vector<Eigen::Index> col;
  std::vector<double> s;
};

SymmetricPattern symmetric_pattern(const Eigen::Ref<const Eigen::MatrixXd>& C) {
  SymmetricPattern p;
  p.n = C.rows();
  p.start.reserve(static_cast<std::size_t>(p.n) + 1);
  p.start.push_back(0);
  for (Eigen::Index i = 0; i < p.n; ++i) {
    for (Eigen::Index j = 0; j < p.n; ++j) {
      const double v = C(i, j) + C(j, i);  // same bits as C(j, i) + C(i, j): S is exactly symmetric
      if (v > 0.0) {
        p.col.push_back(j);
        p.s.push_back(v);
      }
    }
    p.start.push_back(static_cast<Eigen::Index>(p.col.size()));
  }
  return p;
}

bool is_connected(const SymmetricPattern& p) {
  std::vector<char> seen(static_cast<std::size_t>(p.n), 0);
  std::vector<Eigen::Index> todo = {0};
  seen[0] = 1;
  Eigen::Index reached = 1;
  while (!todo.empty()) {
    const Eigen::Index i = todo.back();
    todo.pop_back();
    for (Eigen::Index k = p.start[i]; k < p.start[i + 1]; ++k) {
      const auto j = static_cast<std::size_t>(p.col[k]);
      if (!seen[j]) {
        seen[j] = 1;
        ++reached;
        todo.push_back(p.col[k]);
      }
    }
  }
  return reached == p.n;
}

// X_ij = S_ij / (q_i + q_j) on the pattern, x_i = sum_j X_ij. With q = c / x_old this is one
// fixed-point update. q_i + q_j and q_j + q_i are the same bits, so X stays exactly symmetric.
void fill_flux(const SymmetricPattern& p, const Eigen::VectorXd& q, std::vector<double>& X,
               Eigen::VectorXd& x) {
  X.resize(p.s.size());
  for (Eigen::Index i = 0; i < p.n; ++i) {
    double sum = 0.0;
    for (Eigen::Index k = p.start[i]; k < p.start[i + 1]; ++k) {
      const auto uk = static_cast<std::size_t>(k);
      X[uk] = p.s[uk] / (q(i) + q(p.col[k]));
      sum += X[uk];
    }
    x(i) = sum;
  }
}

// The dual G(y) = 1/2 sum_ij S_ij log(e^y_i + e^y_j) - sum_i c_i y_i (convex, invariant under
// y + const because sum_ij S_ij = 2 sum_i c_i) and its gradient
// g_i = sum_j S_ij q_i / (q_i + q_j) - c_i, q = e^y. g = 0 is the fixed-point equation with
// x_i = c_i / q_i.
double dual(const SymmetricPattern& p, const Eigen::VectorXd& c, const Eigen::VectorXd& y,
            Eigen::VectorXd& g) {
  const Eigen::VectorXd q = y.array().exp();
  double G = 0.0;
  for (Eigen::Index i = 0; i < p.n; ++i) {
    double gi = 0.0;
    for (Eigen::Index k = p.start[i]; k < p.start[i + 1]; ++k) {
      const auto uk = static_cast<std::size_t>(k);
      const double sum = q(i) + q(p.col[k]);
      G += 0.5 * p.s[uk] * std::log(sum);
      gi += p.s[uk] * (q(i) / sum);
    }
    g(i) = gi - c(i);
    G -= c(i) * y(i);
  }
  return G;
}

// Largest relative gradient component: max_i |g_i| / d_i with d_i = sum_j S_ij, the scale of
// the terms of g_i (so the rounding floor is ~1e-16 whatever the row's own count c_i).
double relative_residual(const Eigen::VectorXd& g, const Eigen::VectorXd& d) {
  return g.cwiseAbs().cwiseQuotient(d).maxCoeff();
}

// Newton direction: H delta = -g with the Hessian H of G, the graph Laplacian with weights
// S_ij q_i q_j / (q_i + q_j)^2, after fixing delta_gauge = 0 (G is flat along y + const). The
// reduced H is positive definite for a connected pattern. Dense Cholesky for dense patterns,
// else a sparse Cholesky with AMD ordering. False if the factorisation fails.
bool newton_direction(const SymmetricPattern& p, const Eigen::VectorXd& y, const Eigen::VectorXd& g,
                      Eigen::Index gauge, Eigen::VectorXd& delta) {
  const Eigen::Index n = p.n, m = n - 1;
  const Eigen::VectorXd q = y.array().exp();
  auto reduced = [gauge](Eigen::Index i) { return i < gauge ? i : i - 1; };
  Eigen::VectorXd rhs(m);
  for (Eigen::Index i = 0; i < n; ++i)
    if (i != gauge) rhs(reduced(i)) = -g(i);
  Eigen::VectorXd d;
  const bool dense = n <= 64 || static_cast<double>(p.s.size()) > 0.1 * static_cast<double>(n) * n;
  if (dense) {
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(m, m);
    for (Eigen::Index i = 0; i < n; ++i) {
      if (i == gauge) continue;
      for (Eigen::Index k = p.start[i]; k < p.start[i + 1]; ++k) {
        const Eigen::Index j = p.col[k];
        if (j == i) continue;
        const double sum = q(i) + q(j);
        const double w = p.s[static_cast<std::size_t>(k)] * (q(i) * q(j)) / (sum * sum);
        H(reduced(i), reduced(i)) += w;
        if (j != gauge) H(reduced(i), reduced(j)) -= w;
      }
    }
    Eigen::LLT<Eigen::MatrixXd> llt(H);
    if (llt.info() != Eigen::Success) return false;
    d = llt.solve(rhs);
  } else {
    std::vector<Eigen::Triplet<double>> entries;
    entries.reserve(p.s.size());
    for (Eigen::Index i = 0; i < n; ++i) {
      if (i == gauge) continue;
      double diagonal = 0.0;
      for (Eigen::Index k = p.start[i]; k < p.start[i + 1]; ++k) {
        const Eigen::Index j = p.col[k];
        if (j == i) continue;
        const double sum = q(i) + q(j);
        const double w = p.s[static_cast<std::size_t>(k)] * (q(i) * q(j)) / (sum * sum);
        diagonal += w;
        if (j != gauge) entries.emplace_back(reduced(i), reduced(j), -w);
      }
      entries.emplace_back(reduced(i), reduced(i), diagonal);
    }
    Eigen::SparseMatrix<double> H(m, m);
    H.setFromTriplets(entries.begin(), entries.end());
    Eigen::SimplicialLLT<Eigen::SparseMatrix<double>, Eigen::Lower, Eigen::AMDOrdering<int>> llt(H);
    if (llt.info() != Eigen::Success) return false;
    d = llt.solve(rhs);
    if (llt.info() != Eigen::Success) return false;
  }
  if (!d.allFinite()) return false;
  delta.setZero(n);
  for (Eigen::Index i = 0; i < n; ++i)
    if (i != gauge) delta(i) = d(reduced(i));
  return true;
}

constexpr int kMaxNewtonSteps = 100;
constexpr double kNewtonDone = 1e-14;  // max_i |g_i| / d_i at which Newton stops

// Newton's method on the dual from y = log(c / rowsum(S)). Returns q = e^y of the best iterate;
// counts its steps in `out`. Stops early (leaving the rest to the fixed-point iteration) if a
// factorisation or the line search fails.
Eigen::VectorXd newton_start(const SymmetricPattern& p, const Eigen::VectorXd& c,
                             const Eigen::VectorXd& x0, int max_steps, ReversibleMle& out) {
  const Eigen::Index n = p.n;
  Eigen::VectorXd y = c.cwiseQuotient(x0).array().log();
  Eigen::Index gauge = 0;
  c.maxCoeff(&gauge);  // the best-sampled state: the first with the largest row count
  Eigen::VectorXd g(n), g_new(n), delta(n), y_new(n);
  double G = dual(p, c, y, g);
  double r = relative_residual(g, x0);  // x0 = rowsum(S)
  while (out.iterations < max_steps && out.newton_steps < kMaxNewtonSteps && r > kNewtonDone) {
    if (!newton_direction(p, y, g, gauge, delta)) break;
    const double slope = g.dot(delta);
    if (!(slope < 0.0)) break;
    // The full step is taken if it halves the gradient (always, once in the quadratic basin,
    // where G itself is flat to rounding); otherwise backtracking (Armijo) on the convex dual.
    // A step that neither lowers G nor shrinks g is no progress: Newton stops there.
    y_new = y + delta;
    double G_new = dual(p, c, y_new, g_new);
    double r_new = relative_residual(g_new, x0);
    bool accepted = r_new < 0.5 * r;
    for (double t = 1.0; !accepted && t > 1e-20; t *= 0.5) {
      if (t < 1.0) {
        y_new = y + t * delta;
        G_new = dual(p, c, y_new, g_new);
      }
      if (G_new <= G + 1e-4 * t * slope) {
        r_new = relative_residual(g_new, x0);
        accepted = G_new < G || r_new < r;
        break;
      }
    }
    ++out.iterations;
    ++out.newton_steps;
    if (!accepted) break;
    y.swap(y_new);
    g.swap(g_new);
    G = G_new;
    r = r_new;
  }
  return y.array().exp();
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
  const SymmetricPattern p = symmetric_pattern(C);
  const Eigen::Index n = p.n;
  std::vector<double> X = p.s;  // the plain iteration starts from X = S
  Eigen::VectorXd x(n);
  for (Eigen::Index i = 0; i < n; ++i)
    x(i) = std::accumulate(X.begin() + p.start[i], X.begin() + p.start[i + 1], 0.0);
  ReversibleMle out;
  if (options.method == ReversibleMleMethod::Newton && n > 1 && is_connected(p)) {
    const Eigen::VectorXd q = newton_start(p, c, x, options.max_iterations, out);
    fill_flux(p, q, X, x);  // the fixed-point iteration continues from X(q)
  }
  Eigen::VectorXd pi = x / x.sum();
  Eigen::VectorXd q(n), pi_new(n);
  while (out.iterations < options.max_iterations) {
    q = c.cwiseQuotient(x);
    fill_flux(p, q, X, x);
    ++out.iterations;
    pi_new = x / x.sum();
    const double change = (pi_new - pi).cwiseAbs().maxCoeff();
    pi.swap(pi_new);
    if (change < options.tol) {
      out.converged = true;
      break;
    }
  }
  out.T = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index k = p.start[i]; k < p.start[i + 1]; ++k)
      out.T(i, p.col[k]) = X[static_cast<std::size_t>(k)] / x(i);
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
