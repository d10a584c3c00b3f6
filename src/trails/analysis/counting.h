// Transition counting on discrete trajectories and the largest strongly connected set.
// Pure numerics for trails::analysis: no I/O, no state. Inputs are read-only; results are values.
// Cost: counting is O(total frames); connectivity is O(n^2) on a dense n x n count matrix.
// Throws core::InputError for bad lags, negative or out-of-range state ids, non-square matrices.
#pragma once

#include <span>
#include <vector>

#include <Eigen/Core>

namespace trails::analysis {

enum class CountMode {
  Sliding,    // every pair (x_t, x_{t+lag}) counts 1 (the MLE counting of Prinz et al. 2011)
  Effective,  // sliding counts divided by lag: the simple effective-count approximation for
              // correlated sliding windows (not deeptime's per-state statistical inefficiency)
};

// C_ij = number of pairs (t, t+lag) with x_t = i and x_{t+lag} = j, summed over trajectories.
// n_states = -1 means max state id + 1 (0 if there are no frames). Trajectories with at most
// lag frames contribute nothing. lag >= 1; state ids in [0, n_states).
Eigen::MatrixXd count_matrix(const std::vector<std::vector<int>>& dtrajs, int lag, int n_states,
                             CountMode mode = CountMode::Sliding);

// Strongly connected components of the graph with an edge i -> j wherever C_ij > 0 (i != j),
// found by an iterative Tarjan (1972) search. Each component is sorted; components are listed
// in the order Tarjan completes them.
std::vector<std::vector<int>> strongly_connected_components(
    const Eigen::Ref<const Eigen::MatrixXd>& C);

// The largest strongly connected component, as sorted original state ids. Between components
// of equal size the one holding the smallest state id wins. Empty only for a 0 x 0 matrix.
std::vector<int> largest_connected_set(const Eigen::Ref<const Eigen::MatrixXd>& C);

// C restricted to rows and columns `states` (in the given order): result(a, b) = C(s_a, s_b).
Eigen::MatrixXd restrict_to_set(const Eigen::Ref<const Eigen::MatrixXd>& C,
                                std::span<const int> states);

}  // namespace trails::analysis
