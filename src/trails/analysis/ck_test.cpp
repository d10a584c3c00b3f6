// Chapman-Kolmogorov test: predictions T(tau)^k against MSMs estimated at k tau.
#include "trails/analysis/ck_test.h"

#include <cmath>
#include <limits>
#include <string>

#include "trails/analysis/bayesian_msm.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

namespace trails::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Eigen::MatrixXd active_rows(const Eigen::Ref<const Eigen::MatrixXd>& chi,
                            const std::vector<int>& active) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(active.size()), chi.cols());
  for (std::size_t a = 0; a < active.size(); ++a)
    out.row(static_cast<Eigen::Index>(a)) = chi.row(active[a]);
  return out;
}

// P_IJ = p_I^T Tk chi_J with p_I = pi ∘ chi_I / <pi, chi_I>; a set without weight gives NaN.
Eigen::MatrixXd set_transitions(const Eigen::MatrixXd& Tk, const Eigen::VectorXd& pi,
                                const Eigen::MatrixXd& chi) {
  const Eigen::Index m = chi.cols();
  Eigen::MatrixXd P(m, m);
  const Eigen::MatrixXd Tchi = Tk * chi;
  for (Eigen::Index I = 0; I < m; ++I) {
    const Eigen::VectorXd w = pi.cwiseProduct(chi.col(I));
    const double s = w.sum();
    if (!(s > 0.0)) {
      P.row(I).setConstant(kNaN);
      continue;
    }
    P.row(I) = (w / s).transpose() * Tchi;
  }
  return P;
}

Eigen::MatrixXd std_over(const std::vector<Eigen::MatrixXd>& samples) {
  Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(samples[0].rows(), samples[0].cols());
  for (const auto& s : samples) mean += s;
  mean /= static_cast<double>(samples.size());
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(mean.rows(), mean.cols());
  for (const auto& s : samples) q += (s - mean).cwiseAbs2();
  return (q / static_cast<double>(samples.size())).cwiseSqrt();
}

}  // namespace

Eigen::MatrixXd crisp_memberships(int n_states, const std::vector<std::vector<int>>& sets) {
  Eigen::MatrixXd chi = Eigen::MatrixXd::Zero(n_states, static_cast<Eigen::Index>(sets.size()));
  for (std::size_t I = 0; I < sets.size(); ++I)
    for (int s : sets[I]) {
      if (s < 0 || s >= n_states)
        throw core::InputError("crisp_memberships: expected state ids in [0, " +
                               std::to_string(n_states) + "), got " + std::to_string(s));
      chi(s, static_cast<Eigen::Index>(I)) = 1.0;
    }
  return chi;
}

CkTest chapman_kolmogorov_test(const std::vector<std::vector<int>>& dtrajs, const MsmModel& model,
                               const Eigen::Ref<const Eigen::MatrixXd>& memberships,
                               const CkOptions& options) {
  const double lag_d = model.lag();
  const int tau = static_cast<int>(std::lround(lag_d));
  if (std::abs(lag_d - tau) > 0.0 || tau < 1)
    throw core::InputError("chapman_kolmogorov_test: expected an integral model lag >= 1, got " +
                           std::to_string(lag_d));
  if (options.max_multiple < 1 || options.n_bayesian_samples < 0 || !(options.n_sigma >= 0.0))
    throw core::InputError(
        "chapman_kolmogorov_test: expected max_multiple >= 1, "
        "n_bayesian_samples >= 0, n_sigma >= 0");
  const int n_states = static_cast<int>(memberships.rows());
  const Eigen::Index m = memberships.cols();
  if (m < 1) throw core::InputError("chapman_kolmogorov_test: expected at least one set");
  for (int s : model.active_set())
    if (s >= n_states)
      throw core::InputError("chapman_kolmogorov_test: memberships have " +
                             std::to_string(n_states) + " rows but the model has state " +
                             std::to_string(s));
  const bool bayes = options.n_bayesian_samples > 0;
  auto bayes_options = [&](int k) {
    BayesianMsmOptions o;
    o.n_samples = options.n_bayesian_samples;
    o.reversible = options.reversible;
    o.seed = core::Rng::stream(options.seed, "ck-test", static_cast<std::uint64_t>(k)).next_u64();
    o.n_threads = options.n_threads;
    o.n_timescales = 0;
    o.mle = options.mle;
    return o;
  };

  CkTest out;
  const Eigen::MatrixXd chi0 = active_rows(memberships, model.active_set());
  const Eigen::MatrixXd& T = model.transition_matrix();
  // Bayesian samples at tau for the spread of the predictions.
  std::vector<Eigen::MatrixXd> sample_T, sample_Tk;
  std::vector<Eigen::VectorXd> sample_pi;
  if (bayes) {
    const CountModel counts = model.count_model()
                                  ? *model.count_model()
                                  : estimate_counts(dtrajs, tau, options.count_mode, n_states);
    const auto b = estimate_bayesian_msm(counts, bayes_options(0));
    if (b.point_estimate.active_set() != model.active_set())
      throw core::InputError(
          "chapman_kolmogorov_test: the model's active set differs from the "
          "one of the counts at its lag; pass the model estimated from dtrajs");
    sample_T = b.transition_matrices;
    sample_Tk = sample_T;
    for (Eigen::Index s = 0; s < b.stationary_distributions.rows(); ++s)
      sample_pi.push_back(b.stationary_distributions.row(s).transpose());
  }
  Eigen::MatrixXd Tk = T;
  for (int k = 1; k <= options.max_multiple; ++k) {
    if (k > 1) {
      Tk = (Tk * T).eval();
      for (std::size_t s = 0; s < sample_Tk.size(); ++s)
        sample_Tk[s] = (sample_Tk[s] * sample_T[s]).eval();
    }
    const int lag = k * tau;
    out.lags.push_back(lag);
    out.predicted.push_back(set_transitions(Tk, model.stationary_distribution(), chi0));
    if (bayes) {
      std::vector<Eigen::MatrixXd> preds;
      for (std::size_t s = 0; s < sample_Tk.size(); ++s)
        preds.push_back(set_transitions(sample_Tk[s], sample_pi[s], chi0));
      out.predicted_std.push_back(std_over(preds));
    }
    const CountModel counts = estimate_counts(dtrajs, lag, options.count_mode, n_states);
    Eigen::MatrixXd est = Eigen::MatrixXd::Constant(m, m, kNaN);
    Eigen::MatrixXd sigma = Eigen::MatrixXd::Constant(m, m, kNaN);
    Eigen::MatrixXd est_std = Eigen::MatrixXd::Constant(m, m, kNaN);
    if (counts.n_active() >= 2) {
      const Eigen::MatrixXd chi = active_rows(memberships, counts.active_set);
      std::optional<BayesianMsm> b;
      if (bayes) b = estimate_bayesian_msm(counts, bayes_options(k));
      const MsmModel msm =
          b ? b->point_estimate : estimate_msm(counts, options.reversible, options.mle);
      est = set_transitions(msm.transition_matrix(), msm.stationary_distribution(), chi);
      if (b) {
        std::vector<Eigen::MatrixXd> ests;
        for (std::size_t s = 0; s < b->transition_matrices.size(); ++s)
          ests.push_back(set_transitions(
              b->transition_matrices[s],
              b->stationary_distributions.row(static_cast<Eigen::Index>(s)).transpose(), chi));
        est_std = std_over(ests);
        sigma = (est_std.cwiseAbs2() + out.predicted_std.back().cwiseAbs2()).cwiseSqrt();
      } else {
        const Eigen::VectorXd starts = counts.active_counts().rowwise().sum();
        for (Eigen::Index I = 0; I < m; ++I) {
          const double N = chi.col(I).dot(starts);
          for (Eigen::Index J = 0; J < m; ++J) {
            const double p = est(I, J);
            sigma(I, J) = N > 0.0 ? std::sqrt(k * p * (1.0 - p) / N)
                                  : std::numeric_limits<double>::infinity();
          }
        }
      }
    }
    if (bayes) out.estimated_std.push_back(est_std);
    for (Eigen::Index I = 0; I < m; ++I)
      for (Eigen::Index J = 0; J < m; ++J) {
        const double d = std::abs(out.predicted.back()(I, J) - est(I, J));
        if (!std::isfinite(d)) continue;
        out.max_deviation = std::max(out.max_deviation, d);
        if (sigma(I, J) > 0.0)
          out.max_deviation_sigma = std::max(out.max_deviation_sigma, d / sigma(I, J));
        if (d > options.n_sigma * sigma(I, J) + options.abs_tolerance) out.passed = false;
      }
    out.estimated.push_back(std::move(est));
    out.sigma.push_back(std::move(sigma));
  }
  return out;
}

}  // namespace trails::analysis
