// Committors, reactive flux, rates and mean first passage times by dense linear solves.
#include "trails/analysis/tpt.h"

#include <cmath>
#include <string>

#include <Eigen/LU>

#include "trails/analysis/matrix_checks.h"
#include "trails/core/error.h"

namespace trails::analysis {

namespace {

// 0 = elsewhere, 1 = in A, 2 = in B; validates ranges and disjointness.
std::vector<char> membership(Eigen::Index n, std::span<const int> A, std::span<const int> B,
                             bool need_a, const char* what) {
  if ((need_a && A.empty()) || B.empty())
    throw core::InputError(std::string(what) + ": expected non-empty state sets");
  std::vector<char> kind(static_cast<std::size_t>(n), 0);
  auto mark = [&](std::span<const int> set, char k, const char* name) {
    for (int s : set) {
      if (s < 0 || s >= n)
        throw core::InputError(std::string(what) + ": expected indices in [0, " +
                               std::to_string(n) + ") in set " + name + ", got " +
                               std::to_string(s));
      if (kind[static_cast<std::size_t>(s)] != 0 && kind[static_cast<std::size_t>(s)] != k)
        throw core::InputError(std::string(what) + ": state " + std::to_string(s) +
                               " is in both A and B");
      kind[static_cast<std::size_t>(s)] = k;
    }
  };
  mark(A, 1, "A");
  mark(B, 2, "B");
  return kind;
}

// Solves x_i = sum_j T_ij x_j + b_i on the free states (kind 0), x fixed elsewhere to `fixed`.
Eigen::VectorXd solve_on_free(const Eigen::Ref<const Eigen::MatrixXd>& T,
                              const std::vector<char>& kind, const Eigen::VectorXd& fixed,
                              double constant, const char* what) {
  const Eigen::Index n = T.rows();
  std::vector<Eigen::Index> free;
  for (Eigen::Index i = 0; i < n; ++i)
    if (kind[static_cast<std::size_t>(i)] == 0) free.push_back(i);
  Eigen::VectorXd x = fixed;
  if (free.empty()) return x;
  const auto m = static_cast<Eigen::Index>(free.size());
  Eigen::MatrixXd M(m, m);
  Eigen::VectorXd rhs(m);
  for (Eigen::Index a = 0; a < m; ++a) {
    const Eigen::Index i = free[static_cast<std::size_t>(a)];
    rhs(a) = constant;
    for (Eigen::Index j = 0; j < n; ++j)
      if (kind[static_cast<std::size_t>(j)] != 0) rhs(a) += T(i, j) * fixed(j);
    for (Eigen::Index b = 0; b < m; ++b)
      M(a, b) = (a == b ? 1.0 : 0.0) - T(i, free[static_cast<std::size_t>(b)]);
  }
  Eigen::FullPivLU<Eigen::MatrixXd> lu(M);
  if (!lu.isInvertible())
    throw core::InputError(std::string(what) +
                           ": singular system; some states cannot reach the target set");
  const Eigen::VectorXd y = lu.solve(rhs);
  for (Eigen::Index a = 0; a < m; ++a) x(free[static_cast<std::size_t>(a)]) = y(a);
  return x;
}

}  // namespace

Eigen::VectorXd forward_committor(const Eigen::Ref<const Eigen::MatrixXd>& T,
                                  std::span<const int> A, std::span<const int> B) {
  require_square(T, "forward_committor");
  const auto kind = membership(T.rows(), A, B, true, "forward_committor");
  Eigen::VectorXd fixed = Eigen::VectorXd::Zero(T.rows());
  for (int s : B) fixed(s) = 1.0;
  return solve_on_free(T, kind, fixed, 0.0, "forward_committor");
}

Eigen::VectorXd backward_committor(const Eigen::Ref<const Eigen::MatrixXd>& T,
                                   const Eigen::Ref<const Eigen::VectorXd>& pi,
                                   std::span<const int> A, std::span<const int> B) {
  require_square(T, "backward_committor");
  if (pi.size() != T.rows() || !(pi.minCoeff() > 0.0))
    throw core::InputError("backward_committor: expected pi > 0 of size " +
                           std::to_string(T.rows()));
  const Eigen::MatrixXd reversed = pi.cwiseInverse().asDiagonal() * T.transpose() * pi.asDiagonal();
  return forward_committor(reversed, B, A);
}

ReactiveFlux reactive_flux(const MsmModel& model, std::span<const int> A, std::span<const int> B) {
  const Eigen::MatrixXd& T = model.transition_matrix();
  const Eigen::VectorXd& pi = model.stationary_distribution();
  const auto kind = membership(T.rows(), A, B, true, "reactive_flux");
  ReactiveFlux out;
  out.forward_committor = forward_committor(T, A, B);
  out.backward_committor = model.reversible() ? Eigen::VectorXd(1.0 - out.forward_committor.array())
                                              : backward_committor(T, pi, A, B);
  const Eigen::VectorXd w = pi.cwiseProduct(out.backward_committor);
  out.gross_flux = w.asDiagonal() * T * out.forward_committor.asDiagonal();
  out.gross_flux.diagonal().setZero();
  out.net_flux = (out.gross_flux - out.gross_flux.transpose()).cwiseMax(0.0);
  for (Eigen::Index i = 0; i < T.rows(); ++i)
    if (kind[static_cast<std::size_t>(i)] == 1)
      for (Eigen::Index j = 0; j < T.cols(); ++j)
        if (kind[static_cast<std::size_t>(j)] != 1) out.total_flux += out.gross_flux(i, j);
  const double per_step = out.total_flux / w.sum();
  out.rate = per_step / model.lag();
  out.mfpt = model.lag() / per_step;
  return out;
}

Eigen::VectorXd mfpt_to_set(const MsmModel& model, std::span<const int> B) {
  const Eigen::MatrixXd& T = model.transition_matrix();
  const auto kind = membership(T.rows(), {}, B, false, "mfpt_to_set");
  return model.lag() * solve_on_free(T, kind, Eigen::VectorXd::Zero(T.rows()), 1.0, "mfpt_to_set");
}

double mfpt(const MsmModel& model, std::span<const int> A, std::span<const int> B) {
  membership(model.n_states(), A, B, true, "mfpt");
  const Eigen::VectorXd m = mfpt_to_set(model, B);
  const Eigen::VectorXd& pi = model.stationary_distribution();
  double num = 0.0, den = 0.0;
  for (int s : A) num += pi(s) * m(s), den += pi(s);
  return num / den;
}

Eigen::MatrixXd mfpt_between_sets(const MsmModel& model,
                                  const std::vector<std::vector<int>>& sets) {
  const auto k = static_cast<Eigen::Index>(sets.size());
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(k, k);
  for (Eigen::Index a = 0; a < k; ++a) {
    for (Eigen::Index b = 0; b < k; ++b) {
      if (a == b) continue;
      const auto& A = sets[static_cast<std::size_t>(a)];
      const auto& B = sets[static_cast<std::size_t>(b)];
      const double t = A.empty() || B.empty() ? NAN : mfpt(model, A, B);
      out(a, b) = std::isfinite(t) ? t : NAN;
    }
  }
  return out;
}

}  // namespace trails::analysis
