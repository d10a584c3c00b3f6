// Posterior sampling of transition matrices: Dirichlet rows (non-reversible) and a Gibbs sampler
// over the symmetric flux matrix X with slice-sampled element updates (reversible).
//
// Reversible model. X_ij = X_ji >= 0 on the pattern E of C + C^T (pairs i <= j), x_i = sum_j X_ij,
// T_ij = X_ij / x_i, pi = x / sum(x). Likelihood prod_ij T_ij^C_ij = prod_E X_e^s_e / prod_i
// x_i^c_i with s_ij = C_ij + C_ji (i < j), s_ii = C_ii, c_i = sum_j C_ij. Prior: Lebesgue measure
// on the free elements times exp(-sum_E X_e). Because the likelihood is invariant under X -> lambda
// X, this factorises into a uniform prior on the normalised X (sum_E X_e = 1) and an independent
// Gamma(|E|, 1) total, so the distribution of T is the likelihood times a uniform prior over
// normalised reversible fluxes. Each element's conditional in y = ln X_e,
//   g(y) = (s_e + 1) y - e^y - c_i ln(r_i + e^y) [- c_j ln(r_j + e^y) if i != j],  r = x - X_e,
// is concave, so univariate slice sampling (Neal 2003, stepping out + shrinkage) is exact and
// robust. After each sweep the total is redrawn from its exact Gamma conditional.
#include "trails/analysis/bayesian_msm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "trails/analysis/spectral.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"
#include "trails/core/thread_pool.h"

namespace trails::analysis {

namespace {

// Gamma(shape, 1) by Marsaglia & Tsang (2000); shape < 1 via Gamma(shape + 1) * U^(1/shape).
double sample_gamma(double shape, core::Rng& rng) {
  if (shape < 1.0) {
    const double u = 1.0 - rng.uniform();  // (0, 1]
    return sample_gamma(shape + 1.0, rng) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double z = rng.normal();
    const double v = 1.0 + c * z;
    if (v <= 0.0) continue;
    const double v3 = v * v * v;
    const double u = 1.0 - rng.uniform();
    if (std::log(u) < 0.5 * z * z + d - d * v3 + d * std::log(v3)) return d * v3;
  }
}

// ln(r + e^y) for r >= 0 without overflow.
double log_add_exp(double r, double y) {
  if (r <= 0.0) return y;
  const double lr = std::log(r);
  const double m = std::max(lr, y);
  return m + std::log(std::exp(lr - m) + std::exp(y - m));
}

struct Element {
  Eigen::Index i, j;
  double s;  // symmetric counts s_e
};

class ReversibleChain {
 public:
  ReversibleChain(const Eigen::MatrixXd& C, const Eigen::MatrixXd& X_mle) : c_(C.rowwise().sum()) {
    const Eigen::Index n = C.rows();
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = i; j < n; ++j) {
        const double s = i == j ? C(i, i) : C(i, j) + C(j, i);
        if (s > 0.0) elements_.push_back({i, j, s});
      }
    // Start at the MLE, scaled to the mean of the total's Gamma(|E|, 1) law.
    X_ = Eigen::MatrixXd::Zero(n, n);
    double total = 0.0;
    for (const auto& e : elements_) {
      const double v = std::max(X_mle(e.i, e.j), std::numeric_limits<double>::min());
      X_(e.i, e.j) = X_(e.j, e.i) = v;
      total += v;
    }
    X_ *= static_cast<double>(elements_.size()) / total;
    x_ = X_.rowwise().sum();
  }

  void sweep(core::Rng& rng) {
    for (const auto& e : elements_) update(e, rng);
    double total = 0.0;
    for (const auto& e : elements_) total += X_(e.i, e.j);
    const double scale = sample_gamma(static_cast<double>(elements_.size()), rng) / total;
    X_ *= scale;
    x_ = X_.rowwise().sum();
  }

  Eigen::MatrixXd transition_matrix() const { return x_.cwiseInverse().asDiagonal() * X_; }
  Eigen::VectorXd stationary() const { return x_ / x_.sum(); }

 private:
  void update(const Element& e, core::Rng& rng) {
    const double old = X_(e.i, e.j);
    const double ri = std::max(0.0, x_(e.i) - old);
    const double rj = std::max(0.0, x_(e.j) - old);
    const double ci = c_(e.i), cj = c_(e.j);
    const bool diag = e.i == e.j;
    auto g = [&](double y) {
      double v = (e.s + 1.0) * y - std::exp(y) - ci * log_add_exp(ri, y);
      if (!diag) v -= cj * log_add_exp(rj, y);
      return v;
    };
    const double y0 = std::log(old);
    const double level = g(y0) + std::log(1.0 - rng.uniform());
    const double w = 2.5 / std::sqrt(e.s + 1.0);
    double lo = y0 - w * rng.uniform();
    double hi = lo + w;
    constexpr int max_steps = 200;
    int left = static_cast<int>(rng.below(max_steps));
    int right = max_steps - 1 - left;
    while (left-- > 0 && g(lo) > level) lo -= w;
    while (right-- > 0 && g(hi) > level) hi += w;
    double y1 = y0;
    for (;;) {
      y1 = lo + rng.uniform() * (hi - lo);
      if (g(y1) >= level) break;
      if (y1 < y0)
        lo = y1;
      else
        hi = y1;
      if (!(hi - lo > 0.0)) {  // shrunk onto y0 (only at the resolution of doubles)
        y1 = y0;
        break;
      }
    }
    const double v = std::exp(y1);
    X_(e.i, e.j) = v;
    X_(e.j, e.i) = v;
    x_(e.i) += v - old;
    if (!diag) x_(e.j) += v - old;
  }

  Eigen::VectorXd c_;
  std::vector<Element> elements_;
  Eigen::MatrixXd X_;
  Eigen::VectorXd x_;
};

// Rows T_i ~ Dirichlet(C_ij over j with C_ij > 0); zero counts stay zero, so E[T] is the MLE.
Eigen::MatrixXd dirichlet_rows(const Eigen::MatrixXd& C, core::Rng& rng) {
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(C.rows(), C.cols());
  for (Eigen::Index i = 0; i < C.rows(); ++i) {
    for (Eigen::Index j = 0; j < C.cols(); ++j)
      if (C(i, j) > 0.0) T(i, j) = sample_gamma(C(i, j), rng);
    T.row(i) /= T.row(i).sum();
  }
  return T;
}

// Column means and population standard deviations over rows, ignoring non-finite entries.
void column_stats(const Eigen::MatrixXd& M, Eigen::VectorXd& mean, Eigen::VectorXd& sd) {
  mean.resize(M.cols());
  sd.resize(M.cols());
  for (Eigen::Index c = 0; c < M.cols(); ++c) {
    double s = 0.0;
    int m = 0;
    for (Eigen::Index r = 0; r < M.rows(); ++r)
      if (std::isfinite(M(r, c))) s += M(r, c), ++m;
    if (m == 0) {
      mean(c) = sd(c) = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    mean(c) = s / m;
    double q = 0.0;
    for (Eigen::Index r = 0; r < M.rows(); ++r)
      if (std::isfinite(M(r, c))) q += (M(r, c) - mean(c)) * (M(r, c) - mean(c));
    sd(c) = std::sqrt(q / m);
  }
}

}  // namespace

BayesianMsm estimate_bayesian_msm(const CountModel& counts, const BayesianMsmOptions& options) {
  if (options.n_samples < 1 || options.n_steps < -1 || options.n_steps == 0 ||
      options.n_timescales < 0)
    throw core::InputError(
        "estimate_bayesian_msm: expected n_samples >= 1, n_steps >= 1 (or -1) "
        "and n_timescales >= 0, got " +
        std::to_string(options.n_samples) + ", " + std::to_string(options.n_steps) + ", " +
        std::to_string(options.n_timescales));
  BayesianMsm out{
      estimate_msm(counts, options.reversible, options.mle), {}, {}, {}, {}, {}, {}, {}};
  const Eigen::MatrixXd C = counts.active_counts();
  const Eigen::Index n = C.rows();
  const int k = std::min<int>(options.n_timescales, static_cast<int>(n) - 1);
  const int steps = options.n_steps > 0
                        ? options.n_steps
                        : std::max(20, static_cast<int>(std::lround(std::sqrt(double(n)))));
  const auto ns = static_cast<std::size_t>(options.n_samples);
  std::vector<Eigen::MatrixXd> Ts(ns);
  out.stationary_distributions.resize(options.n_samples, n);
  out.timescales.resize(options.n_samples, k);
  const Eigen::MatrixXd X_mle = out.point_estimate.stationary_distribution().asDiagonal() *
                                out.point_estimate.transition_matrix();
  const double lag = out.point_estimate.lag();
  core::default_pool().parallel_for(
      ns, 1,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t s = begin; s < end; ++s) {
          core::Rng rng = core::Rng::stream(options.seed, "bayesian-msm", s);
          Eigen::VectorXd pi;
          Eigen::VectorXd ts;
          if (options.reversible) {
            ReversibleChain chain(C, X_mle);
            for (int step = 0; step < steps; ++step) chain.sweep(rng);
            Ts[s] = chain.transition_matrix();
            pi = chain.stationary();
            ts = timescales_from_eigenvalues(eigenvalues(Ts[s], pi), lag, k);
          } else {
            Ts[s] = dirichlet_rows(C, rng);
            pi = stationary_distribution(Ts[s]);
            ts = timescales_from_eigenvalues(eigenvalues(Ts[s]), lag, k);
          }
          const auto r = static_cast<Eigen::Index>(s);
          out.stationary_distributions.row(r) = pi.transpose();
          out.timescales.row(r) = ts.transpose();
        }
      },
      options.n_threads);
  column_stats(out.timescales, out.timescales_mean, out.timescales_std);
  column_stats(out.stationary_distributions, out.stationary_mean, out.stationary_std);
  if (options.keep_transition_matrices) out.transition_matrices = std::move(Ts);
  return out;
}

}  // namespace trails::analysis
