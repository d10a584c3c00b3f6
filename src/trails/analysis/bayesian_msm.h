// Bayesian MSM: samples of transition matrices from the posterior given a count matrix, with
// summary statistics (mean and standard deviation of timescales and stationary distribution).
// Pure numerics; deterministic for a seed and independent of n_threads: sample s is its own
// Markov chain driven by core::Rng::stream(seed, "bayesian-msm", s), started at the MLE, and
// samples are computed in parallel into their own slots.
// Cost: reversible, per sample n_steps sweeps of O(|E|) slice-sampling updates (|E| = non-zero
// pairs i <= j of C + C^T) plus one O(n^3) eigen-decomposition; non-reversible, O(n^2 + n^3).
// Throws core::InputError for bad options and for count models with fewer than two active states.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "trails/analysis/msm_model.h"

namespace trails::analysis {

struct BayesianMsmOptions {
  int n_samples = 50;  // msm.n_bayesian_samples
  int n_steps = -1;    // sweeps per sample (reversible); -1: max(20, round(sqrt(n)))
  bool reversible = true;
  std::uint64_t seed = 0;
  int n_threads =
      0;  // at most this many threads of core::default_pool() (0: all); results do not depend on it
  int n_timescales = 3;  // k = min(n_timescales, n_active - 1) timescales per sample
  bool keep_transition_matrices = true;  // needed for Chapman-Kolmogorov errors
  ReversibleMleOptions mle = {};
};

struct BayesianMsm {
  MsmModel point_estimate;                           // the (reversible or not) MLE
  std::vector<Eigen::MatrixXd> transition_matrices;  // per sample, if kept
  Eigen::MatrixXd stationary_distributions;          // n_samples x n_active
  Eigen::MatrixXd timescales;                        // n_samples x k (units of lag)
  Eigen::VectorXd timescales_mean, timescales_std;   // over samples, NaN/inf ignored, ddof 0
  Eigen::VectorXd stationary_mean, stationary_std;
};

BayesianMsm estimate_bayesian_msm(const CountModel& counts, const BayesianMsmOptions& options = {});

}  // namespace trails::analysis
