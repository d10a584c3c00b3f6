// Value types for estimated Markov state models, following deeptime's chain
// counts -> CountModel -> estimate_msm -> MsmModel (docs/analysis.md, "Model types").
// Pure numerics: no I/O, no logging; models are immutable values, safe to share across threads.
// Cost: estimate_counts O(frames + n^2); an MsmModel computes its full eigen-decomposition once,
// at construction, O(n^3) (symmetric solver for reversible models).
// Throws core::InputError for malformed inputs (non-stochastic T, size mismatches, bad indices).
#pragma once

#include <optional>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "trails/analysis/counting.h"
#include "trails/analysis/msm_estimation.h"

namespace trails::analysis {

struct CountModel {
  int lag = 1;
  CountMode mode = CountMode::Sliding;
  Eigen::MatrixXd counts;                        // n_states x n_states, all states
  Eigen::VectorXd state_histogram;               // frames per state over all trajectories
  std::vector<std::vector<int>> connected_sets;  // strongly connected, largest first (ties:
                                                 // smallest state id first), each sorted
  std::vector<int> active_set;                   // connected_sets[0]: original state ids
  std::vector<int> active_index;                 // n_states entries: index in active_set or -1

  int n_states() const { return static_cast<int>(counts.rows()); }
  int n_active() const { return static_cast<int>(active_set.size()); }
  Eigen::MatrixXd active_counts() const;  // counts restricted to active_set
  // Each trajectory with states mapped to active indices; inactive frames become -1.
  std::vector<std::vector<int>> map_to_active(const std::vector<std::vector<int>>& dtrajs) const;
};

// count_matrix + state histogram + connected sets at one lag (n_states = -1: max id + 1).
CountModel estimate_counts(const std::vector<std::vector<int>>& dtrajs, int lag,
                           CountMode mode = CountMode::Sliding, int n_states = -1);

class MsmModel {
 public:
  // T: row-stochastic on the active states (rows sum to 1 within 1e-8, entries >= 0).
  // active_set: original ids of T's states (empty: 0..n-1). pi: given for reversible models
  // (the MLE's), else computed as T's stationary distribution. reversible selects the symmetric
  // eigen-solver and requires pi > 0.
  MsmModel(Eigen::MatrixXd T, double lag, bool reversible, std::vector<int> active_set = {},
           std::optional<Eigen::VectorXd> pi = std::nullopt,
           std::optional<CountModel> count_model = std::nullopt);

  const Eigen::MatrixXd& transition_matrix() const { return T_; }
  const Eigen::VectorXd& stationary_distribution() const { return pi_; }
  bool reversible() const { return reversible_; }
  double lag() const { return lag_; }
  int n_states() const { return static_cast<int>(T_.rows()); }
  const std::vector<int>& active_set() const { return active_set_; }
  const std::optional<CountModel>& count_model() const { return count_model_; }
  bool mle_converged() const { return mle_converged_; }

  // Eigenvalues sorted by modulus descending (real parts); k = -1: all.
  Eigen::VectorXd eigenvalues(int k = -1) const;
  // Columns 0..k-1: right eigenvectors in the same order (column 0 is all ones).
  Eigen::MatrixXd right_eigenvectors(int k = -1) const;
  // Rows 0..k-1: left eigenvectors (row 0 is pi), normalised so that L R = I. For reversible
  // models R^T diag(pi) R = I as well. Signs: the largest-|.| entry of each R column is > 0.
  // Non-reversible models with complex eigenpairs return real parts (documented limitation).
  Eigen::MatrixXd left_eigenvectors(int k = -1) const;
  // -lag / ln|lambda_i| for i = 2..k+1, in the units of lag; 0 <= k <= n - 1.
  Eigen::VectorXd timescales(int k) const;
  // p(steps) = p0^T T^steps (a distribution over the active states), steps >= 0.
  Eigen::VectorXd propagate(const Eigen::Ref<const Eigen::VectorXd>& p0, int steps) const;
  // The model restricted to `states` (indices into the active set, sorted, distinct), rows
  // renormalised. A reversible model stays reversible with pi'_i ∝ pi_i * sum_{j in states} T_ij.
  MsmModel submodel(std::span<const int> states) const;

 private:
  friend MsmModel estimate_msm(const CountModel& counts, bool reversible,
                               const ReversibleMleOptions& mle);

  Eigen::MatrixXd T_;
  Eigen::VectorXd pi_;
  double lag_;
  bool reversible_;
  bool mle_converged_ = true;
  std::vector<int> active_set_;
  std::optional<CountModel> count_model_;
  Eigen::VectorXd eigenvalues_;
  Eigen::MatrixXd right_;  // n x n
  Eigen::MatrixXd left_;   // n x n
};

struct MsmOptions {
  bool reversible = true;
  CountMode count_mode = CountMode::Sliding;
  int n_states = -1;  // -1: max state id + 1
  ReversibleMleOptions mle = {};
};

// fit from counts: restrict to the active set, reversible or non-reversible MLE. Fewer than
// two active states is an InputError (deeptime raises too: nothing to estimate).
MsmModel estimate_msm(const CountModel& counts, bool reversible,
                      const ReversibleMleOptions& mle = {});
// fit from discrete trajectories: estimate_counts(dtrajs, lag, options.count_mode) then the above.
MsmModel estimate_msm(const std::vector<std::vector<int>>& dtrajs, int lag,
                      const MsmOptions& options = {});

}  // namespace trails::analysis
