// Eigenvalues, implied timescales, and the implied-timescale (ITS) sweep over lag times.
// Pure numerics: inputs are read-only, results are values. Timescales are in the units of lag
// (frames, if lag is in frames). Cost: O(n^3) per eigen-decomposition.
// Throws core::InputError for non-square or mismatched inputs, k out of range, lags < 1.
#pragma once

#include <span>
#include <vector>

#include <Eigen/Core>

#include "trails/analysis/counting.h"
#include "trails/analysis/msm_estimation.h"

namespace trails::analysis {

// Real parts of the eigenvalues of T, sorted by modulus descending (general EigenSolver).
Eigen::VectorXd eigenvalues(const Eigen::Ref<const Eigen::MatrixXd>& T);

// Eigenvalues of a reversible T with stationary distribution pi (all pi_i > 0), from the
// symmetric matrix D^{1/2} T D^{-1/2}, D = diag(pi), by a self-adjoint solver; sorted by
// modulus descending. More accurate than the general solver for reversible T.
Eigen::VectorXd eigenvalues(const Eigen::Ref<const Eigen::MatrixXd>& T,
                            const Eigen::Ref<const Eigen::VectorXd>& pi);

// The `count` largest-modulus eigenvalues (including the stationary 1) of a reversible T with
// stationary distribution pi, sorted by modulus descending. For n > 2 count + 20 this uses the
// Lanczos solver of Spectra (SymEigsSolver, fixed start vector, so deterministic) on the
// symmetrised matrix at O(n^2) per iteration instead of O(n^3); otherwise, or if Spectra does
// not converge, the dense self-adjoint solver. 1 <= count <= n. Agrees with eigenvalues(T, pi)
// to ~1e-10.
Eigen::VectorXd leading_eigenvalues(const Eigen::Ref<const Eigen::MatrixXd>& T,
                                    const Eigen::Ref<const Eigen::VectorXd>& pi, int count);

// t_i = -lag / ln|lambda_i| for i = 2..k+1 of eigenvalues sorted as above (entry 0 is the
// stationary eigenvalue and is skipped). |lambda| >= 1 gives +inf, lambda = 0 gives 0.
// 0 <= k <= size - 1.
Eigen::VectorXd timescales_from_eigenvalues(const Eigen::Ref<const Eigen::VectorXd>& eigenvalues,
                                            double lag, int k);

// The k slowest implied timescales of T (general eigenvalues).
Eigen::VectorXd implied_timescales(const Eigen::Ref<const Eigen::MatrixXd>& T, double lag, int k);

// The k slowest implied timescales of a reversible T with stationary distribution pi.
Eigen::VectorXd implied_timescales(const Eigen::Ref<const Eigen::MatrixXd>& T,
                                   const Eigen::Ref<const Eigen::VectorXd>& pi, double lag, int k);

struct ItsSweep {
  std::vector<int> lags;
  Eigen::MatrixXd timescales;   // lags.size() x k; NaN where a lag has too few active states
  std::vector<int> n_active;    // size of the largest connected set per lag
  std::vector<char> converged;  // reversible MLE converged per lag (0 where skipped)
};

// For each lag: count_matrix -> largest_connected_set -> reversible_mle -> implied timescales
// (symmetrised eigenvalues; leading_eigenvalues via Spectra when n_active > 1000). A lag whose
// largest connected set has fewer than 2 states is data, not an error: its row is NaN. Timescales
// beyond n_active - 1 are NaN. k >= 1; lags >= 1. Lags run in parallel on at most n_threads threads
// of core::default_pool() (0: all); each lag writes only its own row, so the result is bitwise
// identical for any thread count.
ItsSweep implied_timescales_sweep(const std::vector<std::vector<int>>& dtrajs,
                                  std::span<const int> lags, int k, int n_states = -1,
                                  CountMode mode = CountMode::Sliding,
                                  const ReversibleMleOptions& options = {}, int n_threads = 0);

}  // namespace trails::analysis
