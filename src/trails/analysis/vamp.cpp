// Regularised whitening, Koopman SVD, VAMP-2 scores of features and MSMs.
#include "trails/analysis/vamp.h"

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "trails/core/error.h"

namespace trails::analysis {

namespace {

void require_lagged(const Covariances& cov, const char* what) {
  const auto d = cov.c00.rows();
  if (cov.lagtime < 1 || cov.c0t.size() == 0 || cov.ctt.size() == 0)
    throw core::InputError(std::string(what) + ": expected time-lagged covariances (lagtime >= 1)");
  if (cov.c00.cols() != d || cov.c0t.rows() != d || cov.c0t.cols() != d || cov.ctt.rows() != d ||
      cov.ctt.cols() != d)
    throw core::InputError(std::string(what) + ": expected square covariances of one size " +
                           std::to_string(d) + ", got C0t " + std::to_string(cov.c0t.rows()) +
                           " x " + std::to_string(cov.c0t.cols()) + " and Ctt " +
                           std::to_string(cov.ctt.rows()) + " x " + std::to_string(cov.ctt.cols()));
}

double score_from(const Eigen::VectorXd& sv, bool mean_removed, const Vamp2Options& o) {
  const Eigen::Index k = o.dim < 0 ? sv.size() : std::min<Eigen::Index>(o.dim, sv.size());
  double s = 0;
  for (Eigen::Index i = 0; i < k; ++i) {
    const double v = o.clip_to_unit ? std::clamp(sv(i), 0.0, 1.0) : sv(i);
    s += v * v;
  }
  if (o.include_constant && mean_removed) s += 1.0;
  return s;
}

Eigen::MatrixXd submatrix(const Eigen::MatrixXd& M, std::span<const int> idx) {
  const auto k = static_cast<Eigen::Index>(idx.size());
  Eigen::MatrixXd S(k, k);
  for (Eigen::Index a = 0; a < k; ++a)
    for (Eigen::Index b = 0; b < k; ++b)
      S(a, b) = M(idx[static_cast<std::size_t>(a)], idx[static_cast<std::size_t>(b)]);
  return S;
}

}  // namespace

InverseSqrt spd_inverse_sqrt(const Eigen::Ref<const Eigen::MatrixXd>& C, double epsilon,
                             EpsilonRule rule) {
  if (C.rows() != C.cols())
    throw core::InputError("spd_inverse_sqrt: expected a square matrix, got " +
                           std::to_string(C.rows()) + " x " + std::to_string(C.cols()));
  InverseSqrt out;
  const Eigen::Index d = C.rows();
  if (d == 0) {
    out.L.resize(0, 0);
    out.eigenvalues.resize(0);
    return out;
  }
  const Eigen::MatrixXd S = 0.5 * (C + C.transpose());
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(S);
  if (es.info() != Eigen::Success)
    throw core::InputError("spd_inverse_sqrt: eigen-decomposition did not converge");
  const Eigen::VectorXd& s = es.eigenvalues();
  std::vector<Eigen::Index> order(static_cast<std::size_t>(d));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](Eigen::Index a, Eigen::Index b) { return std::abs(s(a)) > std::abs(s(b)); });
  std::vector<Eigen::Index> keep;
  if (rule == EpsilonRule::Absolute) {
    double eps = epsilon;
    const double smin = s.minCoeff();
    if (smin < 0) eps = std::max(eps, -smin + 1e-16);  // everything negative must go
    for (const auto i : order)
      if (std::abs(s(i)) >= eps) keep.push_back(i);
  } else {
    const double cut = epsilon * std::max(s.maxCoeff(), 1e-12);
    for (const auto i : order)
      if (s(i) > cut) keep.push_back(i);
  }
  const auto m = static_cast<Eigen::Index>(keep.size());
  out.L.resize(d, m);
  out.eigenvalues.resize(m);
  for (Eigen::Index j = 0; j < m; ++j) {
    Eigen::VectorXd v = es.eigenvectors().col(keep[static_cast<std::size_t>(j)]);
    Eigen::Index imax = 0;
    v.cwiseAbs().maxCoeff(&imax);
    if (v(imax) < 0) v = -v;
    const double lambda = s(keep[static_cast<std::size_t>(j)]);
    out.eigenvalues(j) = lambda;
    out.L.col(j) = v / std::sqrt(lambda);
  }
  return out;
}

VampDecomposition vamp_decomposition(const Covariances& cov, const VampOptions& options) {
  require_lagged(cov, "vamp_decomposition");
  const InverseSqrt w0 = spd_inverse_sqrt(cov.c00, options.epsilon, options.epsilon_rule);
  const InverseSqrt wt = spd_inverse_sqrt(cov.ctt, options.epsilon, options.epsilon_rule);
  VampDecomposition out;
  out.rank_0 = w0.rank();
  out.rank_t = wt.rank();
  const Eigen::Index d = cov.c00.rows();
  if (out.rank_0 == 0 || out.rank_t == 0) {
    out.singular_values.resize(0);
    out.left.resize(d, 0);
    out.right.resize(d, 0);
    return out;
  }
  const Eigen::MatrixXd K = w0.L.transpose() * cov.c0t * wt.L;
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(K, Eigen::ComputeThinU | Eigen::ComputeThinV);
  out.singular_values = svd.singularValues();
  out.left = w0.L * svd.matrixU();
  out.right = wt.L * svd.matrixV();
  return out;
}

Vamp2Options Vamp2Options::trails_md_feature_selection() {
  Vamp2Options o;
  o.epsilon = 1e-6;
  o.epsilon_rule = EpsilonRule::RelativeToLargest;
  o.include_constant = false;
  o.clip_to_unit = true;
  return o;
}

double vamp2_score(const Covariances& cov, const Vamp2Options& options) {
  const VampDecomposition dec =
      vamp_decomposition(cov, VampOptions{options.epsilon, options.epsilon_rule});
  return score_from(dec.singular_values, cov.mean_removed, options);
}

double vamp2_score(const Covariances& cov, std::span<const int> columns,
                   const Vamp2Options& options) {
  require_lagged(cov, "vamp2_score");
  const auto d = static_cast<int>(cov.c00.rows());
  for (const int c : columns)
    if (c < 0 || c >= d)
      throw core::InputError("vamp2_score: column " + std::to_string(c) + " out of range [0, " +
                             std::to_string(d) + ")");
  Covariances sub;
  sub.lagtime = cov.lagtime;
  sub.n_samples = cov.n_samples;
  sub.mean_removed = cov.mean_removed;
  sub.symmetrized = cov.symmetrized;
  sub.c00 = submatrix(cov.c00, columns);
  sub.c0t = submatrix(cov.c0t, columns);
  sub.ctt = submatrix(cov.ctt, columns);
  return vamp2_score(sub, options);
}

double msm_vamp2_score(const Eigen::Ref<const Eigen::MatrixXd>& T,
                       const Eigen::Ref<const Eigen::MatrixXd>& counts_train,
                       const Eigen::Ref<const Eigen::MatrixXd>& counts_test, int k) {
  const Eigen::Index n = T.rows();
  if (T.cols() != n || counts_train.rows() != n || counts_train.cols() != n ||
      counts_test.rows() != n || counts_test.cols() != n)
    throw core::InputError(
        "msm_vamp2_score: expected T and both count matrices " + std::to_string(n) + " x " +
        std::to_string(n) + ", got T " + std::to_string(T.rows()) + " x " +
        std::to_string(T.cols()) + ", train " + std::to_string(counts_train.rows()) + " x " +
        std::to_string(counts_train.cols()) + ", test " + std::to_string(counts_test.rows()) +
        " x " + std::to_string(counts_test.cols()));
  if (n == 0) throw core::InputError("msm_vamp2_score: empty transition matrix");
  constexpr double kEps = 1e-10;  // spd_inv_sqrt default of PyEMMA/deeptime's MSM score
  auto inv_sqrt_diag = [](const Eigen::VectorXd& x) {
    Eigen::VectorXd r(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i) r(i) = x(i) >= kEps ? 1.0 / std::sqrt(x(i)) : 0.0;
    return r;
  };
  const Eigen::VectorXd r = counts_train.rowwise().sum(), c = counts_train.colwise().sum();
  const Eigen::VectorXd ir = inv_sqrt_diag(r), ic = inv_sqrt_diag(c);
  // C00^{-1/2} (C00 T) Ctt^{-1/2}: the Koopman matrix reweighted to the empirical distribution.
  const Eigen::MatrixXd Ksym = (ir.cwiseProduct(r)).asDiagonal() * T * ic.asDiagonal();
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(Ksym, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Eigen::Index kk = k < 0 ? n : std::min<Eigen::Index>(k, n);
  const Eigen::MatrixXd U = ir.asDiagonal() * svd.matrixU().leftCols(kk);
  const Eigen::MatrixXd V = ic.asDiagonal() * svd.matrixV().leftCols(kk);
  const Eigen::VectorXd r_test = counts_test.rowwise().sum(), c_test = counts_test.colwise().sum();
  const Eigen::MatrixXd A = U.transpose() * r_test.asDiagonal() * U;
  const Eigen::MatrixXd B = U.transpose() * counts_test * V;
  const Eigen::MatrixXd Cm = V.transpose() * c_test.asDiagonal() * V;
  const InverseSqrt la = spd_inverse_sqrt(A, kEps), lc = spd_inverse_sqrt(Cm, kEps);
  return (la.L.transpose() * B * lc.L).squaredNorm();
}

double msm_vamp2_score_stationary(const Eigen::Ref<const Eigen::MatrixXd>& T,
                                  const Eigen::Ref<const Eigen::VectorXd>& pi) {
  const Eigen::Index n = T.rows();
  if (T.cols() != n || pi.size() != n || n == 0)
    throw core::InputError(
        "msm_vamp2_score_stationary: expected a non-empty square T and pi of "
        "its size, got T " +
        std::to_string(T.rows()) + " x " + std::to_string(T.cols()) + " and pi " +
        std::to_string(pi.size()));
  for (Eigen::Index i = 0; i < n; ++i)
    if (!(pi(i) > 0))
      throw core::InputError("msm_vamp2_score_stationary: expected pi > 0, got " +
                             std::to_string(pi(i)) + " at " + std::to_string(i));
  double s = 0;
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) s += pi(i) * T(i, j) * T(i, j) / pi(j);
  return s;
}

}  // namespace trails::analysis
