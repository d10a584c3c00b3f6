// MsmStage::estimate (msm_stage.h): the model of one build from the stage's kept counts — the
// active set, the reversible MLE or the Bayesian MSM's point estimate and timescale errors,
// implied timescales, VAMP-2, the right eigenvectors for the MSM spawner, PCCA+ and the
// implied-timescale ladder (docs/analysis.md, "In the loop").
#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Eigenvalues>

#include "trails/analysis/bayesian_msm.h"
#include "trails/analysis/counting.h"
#include "trails/analysis/msm_estimation.h"
#include "trails/analysis/msm_model.h"
#include "trails/analysis/pcca.h"
#include "trails/analysis/spectral.h"
#include "trails/core/rng.h"
#include "trails/msm/msm_stage.h"

namespace trails::msm {
namespace {

// VAMP-2 of a reversible MSM on its own data = sum of its squared eigenvalues
// = ||D^1/2 T D^-1/2||_F^2 (the trivial eigenvalue 1 included).
double vamp2_of(const Eigen::MatrixXd& T, const Eigen::VectorXd& pi) {
  double v = 0.0;
  for (Eigen::Index i = 0; i < T.rows(); ++i) {
    for (Eigen::Index j = 0; j < T.cols(); ++j) v += pi(i) * T(i, j) * T(i, j) / pi(j);
  }
  return v;
}

// Right eigenvectors psi = D^-1/2 u of S = D^1/2 T D^-1/2 (sorted by |lambda|, psi_1 = 1 left
// out): n_active x (n_active - 1).
Eigen::MatrixXd right_eigenvectors(const Eigen::MatrixXd& T, const Eigen::VectorXd& pi) {
  const Eigen::Index n_active = T.rows();
  const Eigen::VectorXd sq = pi.array().sqrt();
  const Eigen::MatrixXd S = sq.asDiagonal() * T * sq.cwiseInverse().asDiagonal();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (S + S.transpose()));
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n_active));
  for (Eigen::Index i = 0; i < n_active; ++i) order[static_cast<std::size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index c) {
    return std::abs(es.eigenvalues()(a)) > std::abs(es.eigenvalues()(c));
  });
  Eigen::MatrixXd psi(n_active, n_active - 1);
  for (Eigen::Index r = 1; r < n_active; ++r) {
    psi.col(r - 1) =
        sq.cwiseInverse().asDiagonal() * es.eigenvectors().col(order[static_cast<std::size_t>(r)]);
  }
  return psi;
}

// PCCA+ with m = b.n_metastable sets (Trails-MD skips it unless m < n_active; the build then has
// no sets).
void pcca_sets(MsmBuild& b, const Eigen::VectorXd& pi) {
  if (b.n_metastable >= static_cast<int>(b.active_set.size())) return;
  const analysis::MsmModel model(b.T, b.lag, true, b.active_set, pi);
  const auto p = analysis::pcca(model, b.n_metastable);
  b.memberships = p.memberships;
  b.metastable_assignments = p.assignments;
  b.metastable_populations.assign(p.populations.data(),
                                  p.populations.data() + p.populations.size());
  b.crispness = p.crispness;
}

// The n_timescales implied timescales at `lag` of the reversible MLE on the largest connected
// set of `counts` (NaN where the set has too few states).
std::vector<double> its_at(const Eigen::MatrixXd& counts, int lag, int n_timescales) {
  std::vector<double> row(static_cast<std::size_t>(n_timescales),
                          std::numeric_limits<double>::quiet_NaN());
  const auto set = analysis::largest_connected_set(counts);
  if (set.size() >= 2) {
    const auto mle = analysis::reversible_mle(analysis::restrict_to_set(counts, set));
    const int nts = std::min<int>(n_timescales, static_cast<int>(set.size()) - 1);
    const Eigen::VectorXd ts = analysis::implied_timescales(mle.T, mle.pi, lag, nts);
    for (int i = 0; i < nts; ++i) row[static_cast<std::size_t>(i)] = ts(i);
  }
  return row;
}

}  // namespace

// Counts at a lag of the ladder: the kept sliding counts, or — Bayesian, as Trails-MD's
// effective count mode — the kept effective counts; both incremental.
Eigen::MatrixXd MsmStage::counts_at(std::size_t li) const {
  return config_.bayesian ? effective_[li].effective() : counts_[li];
}

// Point estimate = the reversible MLE of the effective counts (BayesianMSM's prior); each
// posterior sample its own seeded chain, so the errors do not depend on threads.
analysis::BayesianMsm MsmStage::bayesian_at(const Eigen::MatrixXd& counts,
                                            const std::vector<int>& active_set, int lag, int nts,
                                            std::uint64_t seed) const {
  const auto kc = static_cast<int>(centres_.centres.rows());
  analysis::CountModel cm;
  cm.lag = lag;
  cm.mode = analysis::CountMode::Effective;
  cm.counts = counts;
  cm.state_histogram = Eigen::Map<const Eigen::VectorXd>(histogram_.data(), kc);
  cm.connected_sets = {active_set};
  cm.active_set = active_set;
  cm.active_index.assign(static_cast<std::size_t>(kc), -1);
  for (std::size_t a = 0; a < active_set.size(); ++a) {
    cm.active_index[static_cast<std::size_t>(active_set[a])] = static_cast<int>(a);
  }
  analysis::BayesianMsmOptions o;
  o.n_samples = config_.n_bayesian_samples;
  o.seed = seed;
  o.n_threads = kMsmThreads;
  o.n_timescales = nts;
  o.keep_transition_matrices = false;
  return analysis::estimate_bayesian_msm(cm, o);
}

Eigen::VectorXd MsmStage::bayesian_estimate(MsmBuild& b, const Eigen::MatrixXd& counts,
                                            int nts) const {
  const auto seed =
      core::Rng::stream(seed_, "msm-bayesian", static_cast<std::uint64_t>(b.iteration)).next_u64();
  const auto bayes = bayesian_at(counts, b.active_set, b.lag, nts, seed);
  b.T = bayes.point_estimate.transition_matrix();
  b.mle_converged = bayes.point_estimate.mle_converged();
  b.timescale_errors.assign(bayes.timescales_std.data(),
                            bayes.timescales_std.data() + bayes.timescales_std.size());
  return bayes.point_estimate.stationary_distribution();
}

// Bayesian builds: the standard deviation of each implied timescale over posterior samples at a
// lag of the ladder (the ITS picture's band). At the model's lag they are the model's own errors;
// elsewhere each lag has its own seeded sampler (docs/analysis.md, "In the loop").
std::vector<double> MsmStage::its_errors_at(const MsmBuild& b, const Eigen::MatrixXd& counts,
                                            int lag) const {
  std::vector<double> row(static_cast<std::size_t>(config_.n_timescales),
                          std::numeric_limits<double>::quiet_NaN());
  if (lag == b.lag && b.note.empty()) {
    std::copy(b.timescale_errors.begin(), b.timescale_errors.end(), row.begin());
    return row;
  }
  const auto set = analysis::largest_connected_set(counts);
  if (set.size() < 2) return row;
  const int nts = std::min<int>(config_.n_timescales, static_cast<int>(set.size()) - 1);
  const auto seed =
      core::Rng::stream(seed_, "msm-bayesian-its", static_cast<std::uint64_t>(b.iteration),
                        static_cast<std::uint64_t>(lag))
          .next_u64();
  const auto bayes = bayesian_at(counts, set, lag, nts, seed);
  for (int i = 0; i < nts; ++i) row[static_cast<std::size_t>(i)] = bayes.timescales_std(i);
  return row;
}

// The model on the active set (at least 2 states) of `counts`, the counts at msm.lagtime.
void MsmStage::estimate_model(MsmBuild& b, const Eigen::MatrixXd& counts) const {
  b.C = analysis::restrict_to_set(counts, b.active_set);
  const int n_active = static_cast<int>(b.active_set.size());
  const int nts = std::min(config_.n_timescales, n_active - 1);
  Eigen::VectorXd pi;
  if (!config_.bayesian) {
    auto mle = analysis::reversible_mle(b.C);
    b.T = std::move(mle.T);
    pi = std::move(mle.pi);
    b.mle_converged = mle.converged;
  } else {
    pi = bayesian_estimate(b, counts, nts);
  }
  b.pi.assign(pi.data(), pi.data() + pi.size());
  const Eigen::VectorXd ts = analysis::implied_timescales(b.T, pi, b.lag, nts);
  b.timescales.assign(ts.data(), ts.data() + ts.size());
  b.vamp2 = vamp2_of(b.T, pi);
  for (const int st : b.active_set)
    b.counts_per_state.push_back(histogram_[static_cast<std::size_t>(st)]);
  b.eigenvectors = right_eigenvectors(b.T, pi);
  if (config_.n_metastable) {
    b.n_metastable = *config_.n_metastable;
    pcca_sets(b, pi);
  }
}

void MsmStage::estimate(MsmBuild& b) const {
  b.clustering = shared_centres_;
  b.clustering_version = n_refits_;
  b.bayesian = config_.bayesian;
  const Eigen::MatrixXd counts = counts_at(0);
  b.active_set = analysis::largest_connected_set(counts);
  if (b.active_set.size() < 2) {
    b.note = "fewer than 2 states in the largest strongly connected set";
  } else {
    estimate_model(b, counts);
  }
  for (const int lag : config_.lagtimes) {
    const auto li =
        static_cast<std::size_t>(std::find(lags_.begin(), lags_.end(), lag) - lags_.begin());
    const Eigen::MatrixXd& at_lag = li == 0 ? counts : counts_at(li);
    b.its_lags.push_back(lag);
    b.its.push_back(its_at(at_lag, lag, config_.n_timescales));
    if (config_.bayesian) b.its_errors.push_back(its_errors_at(b, at_lag, lag));
  }
}

}  // namespace trails::msm
