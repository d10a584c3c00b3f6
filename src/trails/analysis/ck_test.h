// Chapman-Kolmogorov test (Prinz et al. 2011, §IV; deeptime's ChapmanKolmogorovValidator):
// for metastable sets I, J compare the model's prediction p_IJ(k tau) = p_I^T T(tau)^k chi_J
// with the estimate from an MSM built at lag k tau, p_I^T T(k tau) chi_J, where p_I ∝ pi ∘ chi_I.
// Pure numerics. Cost: one MSM estimation (plus optional Bayesian sampling) per multiple k.
// Throws core::InputError for bad options, non-integral lags, or membership/state mismatches.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "trails/analysis/msm_model.h"

namespace trails::analysis {

struct CkOptions {
  int max_multiple = 5;    // k = 1..max_multiple
  bool reversible = true;  // estimator for the models at k tau
  CountMode count_mode = CountMode::Sliding;
  ReversibleMleOptions mle = {};
  int n_bayesian_samples = 0;  // > 0: standard deviations of predictions and estimates from
                               // Bayesian MSMs (at tau and at each k tau)
  std::uint64_t seed = 0;
  int n_threads = 0;
  double n_sigma = 3.0;  // pass if every |pred - est| <= n_sigma * sigma + abs_tolerance
  double abs_tolerance = 1e-3;
};

struct CkTest {
  std::vector<int> lags;                       // k tau, k = 1..max_multiple
  std::vector<Eigen::MatrixXd> predicted;      // per k: m x m, rows sum to 1
  std::vector<Eigen::MatrixXd> estimated;      // per k: m x m (NaN if the set has no active state)
  std::vector<Eigen::MatrixXd> predicted_std;  // per k (Bayesian only, else empty)
  std::vector<Eigen::MatrixXd> estimated_std;  // per k (Bayesian only, else empty)
  std::vector<Eigen::MatrixXd> sigma;          // per k: error used for the verdict: Bayesian
                                               // sqrt(sd_pred^2 + sd_est^2), else Prinz's
                                               // sqrt(k p (1 - p) / N_I) with N_I = counts from I
  double max_deviation = 0.0;                  // max |pred - est|
  double max_deviation_sigma = 0.0;            // max |pred - est| / sigma
  bool passed = true;
};

// memberships: n_states x m over ORIGINAL state ids (n_states = number of microstates, >= every
// id in dtrajs); crisp sets are 0/1 columns (see crisp_memberships). model: the MSM at lag tau
// (integral) estimated from the same dtrajs.
CkTest chapman_kolmogorov_test(const std::vector<std::vector<int>>& dtrajs, const MsmModel& model,
                               const Eigen::Ref<const Eigen::MatrixXd>& memberships,
                               const CkOptions& options = {});

// 0/1 memberships (n_states x sets.size()) from sets of original state ids.
Eigen::MatrixXd crisp_memberships(int n_states, const std::vector<std::vector<int>>& sets);

}  // namespace trails::analysis
