// CountModel / MsmModel value types and the estimate_msm entry points.
#include "trails/analysis/msm_model.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>
#include <string>

#include <Eigen/Eigenvalues>
#include <Eigen/LU>

#include "trails/analysis/spectral.h"
#include "trails/core/error.h"

namespace trails::analysis {

namespace {

// Order of `values` by modulus descending; stable, so ties keep the solver's order (this is the
// order spectral.h's eigenvalues() uses, so both give the same sequence).
template <class Values>
std::vector<Eigen::Index> modulus_order(const Values& values) {
  std::vector<Eigen::Index> order(static_cast<std::size_t>(values.size()));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    return std::abs(values(a)) > std::abs(values(b));
  });
  return order;
}

// Flip column k of R and row k of L so that the largest-|.| entry of R's column is positive.
void fix_signs(Eigen::MatrixXd& R, Eigen::MatrixXd& L) {
  for (Eigen::Index k = 0; k < R.cols(); ++k) {
    Eigen::Index arg = 0;
    R.col(k).cwiseAbs().maxCoeff(&arg);
    if (R(arg, k) < 0.0) {
      R.col(k) *= -1.0;
      L.row(k) *= -1.0;
    }
  }
}

int checked_k(int k, Eigen::Index n, const char* what) {
  if (k == -1) return static_cast<int>(n);
  if (k < 0 || k > n)
    throw core::InputError(std::string(what) + ": expected 0 <= k <= " + std::to_string(n) +
                           " (or -1 for all), got " + std::to_string(k));
  return k;
}

}  // namespace

Eigen::MatrixXd CountModel::active_counts() const { return restrict_to_set(counts, active_set); }

std::vector<std::vector<int>> CountModel::map_to_active(
    const std::vector<std::vector<int>>& dtrajs) const {
  std::vector<std::vector<int>> out;
  out.reserve(dtrajs.size());
  for (const auto& traj : dtrajs) {
    std::vector<int> mapped;
    mapped.reserve(traj.size());
    for (int s : traj)
      mapped.push_back(s >= 0 && s < n_states() ? active_index[static_cast<std::size_t>(s)] : -1);
    out.push_back(std::move(mapped));
  }
  return out;
}

CountModel estimate_counts(const std::vector<std::vector<int>>& dtrajs, int lag, CountMode mode,
                           int n_states) {
  CountModel m;
  m.lag = lag;
  m.mode = mode;
  m.counts = count_matrix(dtrajs, lag, n_states, mode);  // validates lag and state ids
  const Eigen::Index n = m.counts.rows();
  m.state_histogram = Eigen::VectorXd::Zero(n);
  for (const auto& traj : dtrajs)
    for (int s : traj) m.state_histogram(s) += 1.0;
  m.connected_sets = strongly_connected_components(m.counts);
  std::stable_sort(m.connected_sets.begin(), m.connected_sets.end(),
                   [](const std::vector<int>& a, const std::vector<int>& b) {
                     return a.size() != b.size() ? a.size() > b.size() : a.front() < b.front();
                   });
  if (!m.connected_sets.empty()) m.active_set = m.connected_sets.front();
  m.active_index.assign(static_cast<std::size_t>(n), -1);
  for (std::size_t a = 0; a < m.active_set.size(); ++a)
    m.active_index[static_cast<std::size_t>(m.active_set[a])] = static_cast<int>(a);
  return m;
}

MsmModel::MsmModel(Eigen::MatrixXd T, double lag, bool reversible, std::vector<int> active_set,
                   std::optional<Eigen::VectorXd> pi, std::optional<CountModel> count_model)
    : T_(std::move(T)),
      lag_(lag),
      reversible_(reversible),
      active_set_(std::move(active_set)),
      count_model_(std::move(count_model)) {
  const Eigen::Index n = T_.rows();
  if (n == 0 || T_.cols() != n)
    throw core::InputError("MsmModel: expected a non-empty square transition matrix, got " +
                           std::to_string(T_.rows()) + " x " + std::to_string(T_.cols()));
  if (!(lag > 0.0))
    throw core::InputError("MsmModel: expected lag > 0, got " + std::to_string(lag));
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!(T_.row(i).minCoeff() >= 0.0) || !(std::abs(T_.row(i).sum() - 1.0) <= 1e-8))
      throw core::InputError("MsmModel: row " + std::to_string(i) +
                             " is not a probability distribution (entries >= 0, sum 1 within "
                             "1e-8); sum = " +
                             std::to_string(T_.row(i).sum()));
  }
  if (active_set_.empty()) {
    active_set_.resize(static_cast<std::size_t>(n));
    std::iota(active_set_.begin(), active_set_.end(), 0);
  }
  if (static_cast<Eigen::Index>(active_set_.size()) != n)
    throw core::InputError("MsmModel: expected " + std::to_string(n) + " active state ids, got " +
                           std::to_string(active_set_.size()));
  if (pi) {
    if (pi->size() != n)
      throw core::InputError("MsmModel: expected pi of size " + std::to_string(n) + ", got " +
                             std::to_string(pi->size()));
    pi_ = *pi;
  } else {
    pi_ = trails::analysis::stationary_distribution(T_);
  }
  if (reversible_) {
    for (Eigen::Index i = 0; i < n; ++i)
      if (!(pi_(i) > 0.0))
        throw core::InputError("MsmModel: a reversible model needs pi > 0, got " +
                               std::to_string(pi_(i)) + " at state " + std::to_string(i));
    // S = D^1/2 T D^-1/2 is symmetric; S = U diag(l) U^T gives R = D^-1/2 U, L = U^T D^1/2.
    const Eigen::VectorXd s = pi_.cwiseSqrt();
    Eigen::MatrixXd S = s.asDiagonal() * T_ * s.cwiseInverse().asDiagonal();
    S = (0.5 * (S + S.transpose())).eval();
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(S);
    if (solver.info() != Eigen::Success)
      throw core::InputError("MsmModel: eigen-decomposition did not converge");
    const auto order = modulus_order(solver.eigenvalues());
    eigenvalues_.resize(n);
    Eigen::MatrixXd U(n, n);
    for (Eigen::Index k = 0; k < n; ++k) {
      eigenvalues_(k) = solver.eigenvalues()(order[static_cast<std::size_t>(k)]);
      U.col(k) = solver.eigenvectors().col(order[static_cast<std::size_t>(k)]);
    }
    right_ = s.cwiseInverse().asDiagonal() * U;
    left_ = U.transpose() * s.asDiagonal();
  } else {
    Eigen::EigenSolver<Eigen::MatrixXd> solver(T_, true);
    if (solver.info() != Eigen::Success)
      throw core::InputError("MsmModel: eigen-decomposition did not converge");
    const auto order = modulus_order(solver.eigenvalues());
    Eigen::MatrixXcd V(n, n);
    Eigen::VectorXcd values(n);
    for (Eigen::Index k = 0; k < n; ++k) {
      values(k) = solver.eigenvalues()(order[static_cast<std::size_t>(k)]);
      V.col(k) = solver.eigenvectors().col(order[static_cast<std::size_t>(k)]);
    }
    V.col(0) /= V.col(0).mean();  // the stationary right eigenvector becomes all ones
    const Eigen::MatrixXcd W = V.inverse();
    eigenvalues_ = values.real();
    right_ = V.real();
    left_ = W.real();
  }
  fix_signs(right_, left_);
}

Eigen::VectorXd MsmModel::eigenvalues(int k) const {
  return eigenvalues_.head(checked_k(k, T_.rows(), "eigenvalues"));
}

Eigen::MatrixXd MsmModel::right_eigenvectors(int k) const {
  return right_.leftCols(checked_k(k, T_.rows(), "right_eigenvectors"));
}

Eigen::MatrixXd MsmModel::left_eigenvectors(int k) const {
  return left_.topRows(checked_k(k, T_.rows(), "left_eigenvectors"));
}

Eigen::VectorXd MsmModel::timescales(int k) const {
  return timescales_from_eigenvalues(eigenvalues_, lag_, k);
}

Eigen::VectorXd MsmModel::propagate(const Eigen::Ref<const Eigen::VectorXd>& p0, int steps) const {
  if (p0.size() != T_.rows() || steps < 0)
    throw core::InputError("propagate: expected a vector of size " + std::to_string(T_.rows()) +
                           " and steps >= 0, got size " + std::to_string(p0.size()) + ", steps " +
                           std::to_string(steps));
  Eigen::RowVectorXd p = p0.transpose();
  for (int s = 0; s < steps; ++s) p = (p * T_).eval();
  return p.transpose();
}

MsmModel MsmModel::submodel(std::span<const int> states) const {
  for (std::size_t a = 0; a < states.size(); ++a)
    if (states[a] < 0 || states[a] >= n_states() || (a > 0 && states[a] <= states[a - 1]))
      throw core::InputError("submodel: expected sorted distinct indices in [0, " +
                             std::to_string(n_states()) + "), got " + std::to_string(states[a]) +
                             " at position " + std::to_string(a));
  if (states.empty()) throw core::InputError("submodel: expected at least one state");
  Eigen::MatrixXd T = restrict_to_set(T_, states);
  const Eigen::VectorXd r = T.rowwise().sum();
  for (Eigen::Index i = 0; i < r.size(); ++i)
    if (!(r(i) > 0.0))
      throw core::InputError("submodel: state " +
                             std::to_string(states[static_cast<std::size_t>(i)]) +
                             " has no transitions within the subset");
  T = r.cwiseInverse().asDiagonal() * T;
  std::vector<int> ids;
  std::optional<Eigen::VectorXd> pi;
  Eigen::VectorXd w(static_cast<Eigen::Index>(states.size()));
  for (std::size_t a = 0; a < states.size(); ++a) {
    ids.push_back(active_set_[static_cast<std::size_t>(states[a])]);
    w(static_cast<Eigen::Index>(a)) = pi_(states[a]) * r(static_cast<Eigen::Index>(a));
  }
  if (reversible_) pi = w / w.sum();
  std::optional<CountModel> counts = count_model_;
  if (counts) {
    counts->active_set = ids;
    std::fill(counts->active_index.begin(), counts->active_index.end(), -1);
    for (std::size_t a = 0; a < ids.size(); ++a)
      counts->active_index[static_cast<std::size_t>(ids[a])] = static_cast<int>(a);
  }
  MsmModel sub(std::move(T), lag_, reversible_, std::move(ids), std::move(pi), std::move(counts));
  sub.mle_converged_ = mle_converged_;
  return sub;
}

MsmModel estimate_msm(const CountModel& counts, bool reversible, const ReversibleMleOptions& mle) {
  if (counts.n_active() < 2)
    throw core::InputError(
        "estimate_msm: expected at least 2 states in the largest connected "
        "set, got " +
        std::to_string(counts.n_active()));
  const Eigen::MatrixXd C = counts.active_counts();
  if (reversible) {
    auto est = reversible_mle(C, mle);
    MsmModel m(std::move(est.T), counts.lag, true, counts.active_set, std::move(est.pi), counts);
    m.mle_converged_ = est.converged;
    return m;
  }
  return MsmModel(nonreversible_mle(C), counts.lag, false, counts.active_set, std::nullopt, counts);
}

MsmModel estimate_msm(const std::vector<std::vector<int>>& dtrajs, int lag,
                      const MsmOptions& options) {
  return estimate_msm(estimate_counts(dtrajs, lag, options.count_mode, options.n_states),
                      options.reversible, options.mle);
}

}  // namespace trails::analysis
