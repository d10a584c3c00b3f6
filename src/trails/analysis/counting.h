// Transition counting on discrete trajectories and the largest strongly connected set.
// Pure numerics for trails::analysis: no I/O, no state. Inputs are read-only; results are values.
// Cost: sliding counting is O(total frames); effective counting adds O(C_ij * K_ij) per nonzero
// pair (K_ij: the lag at which the pair's autocorrelation first drops to <= 0); connectivity is
// O(n^2) on a dense n x n count matrix.
// Throws core::InputError for bad lags, negative or out-of-range state ids, non-square matrices.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Core>

namespace trails::analysis {

enum class CountMode {
  Sliding,    // every pair (x_t, x_{t+lag}) counts 1 (the MLE counting of Prinz et al. 2011)
  Effective,  // sliding counts times the statistical inefficiency of each pair's count indicator,
              // averaged over each row (Noé 2015; deeptime's `effective` mode, see below)
};

// Statistical inefficiency I in (0, 1] of a set of time series treated as independent runs of
// one stationary process: I = 1 / (2 tau), tau = 1/2 + sum_{k>=1} A(k) w(k), where A(k) is the
// autocorrelation pooled over the series (global mean and variance; lag-k products summed over
// every series longer than k, divided by their number), w(k) = sum_s (L_s - k)+ / sum_s L_s
// (for one series 1 - k/L), and the sum stops before the first k with A(k) <= 0 (truncated
// autocorrelation). Constant input (zero variance) gives 1. N * I is the number of effectively
// uncorrelated samples.
double statistical_inefficiency(const std::vector<std::vector<double>>& series);

// Sliding: C_ij = number of pairs (t, t+lag) with x_t = i and x_{t+lag} = j, summed over
// trajectories. Effective: for every pair with C_ij > 0, I_ij is the statistical inefficiency of
// the indicator series a_t = [x_t = i and x_{t+lag} = j] (t = 0 .. L - lag - 1 per trajectory);
// C_eff_ij = C_ij * I_i with the row average I_i = sum_j C_ij I_ij / sum_j C_ij, so each row
// keeps its proportions (the non-reversible MLE is unchanged) and only its total shrinks.
// n_states = -1 means max state id + 1 (0 if there are no frames). Trajectories with at most
// lag frames contribute nothing. lag >= 1; state ids in [0, n_states).
Eigen::MatrixXd count_matrix(const std::vector<std::vector<int>>& dtrajs, int lag, int n_states,
                             CountMode mode = CountMode::Sliding);

// Effective counts accumulated trajectory by trajectory, for a campaign whose walker segments
// arrive over time: effective() equals count_matrix(every added trajectory, lag, n_states,
// Effective) bit for bit. Every term of the pooled autocorrelation above is an integer count
// summed over trajectories (pairs of occurrences k apart, occurrences with a partner slot k
// later or earlier, lag-k pairs of the series), so they are kept per nonzero pair and k.
// Cost: O(L^2) per added trajectory of L frames and O(nonzero pairs x longest L) per
// effective(), independent of how many trajectories were added; memory O(pairs x longest L).
// For few long trajectories the batch count_matrix (which stops at the truncation) is cheaper.
class EffectiveCountAccumulator {
 public:
  EffectiveCountAccumulator(int n_states, int lag);
  void add(std::span<const int> dtraj);  // state ids in [0, n_states)
  const Eigen::MatrixXd& sliding() const { return C_; }
  Eigen::MatrixXd effective() const;

 private:
  struct Pair {
    std::vector<double> products;  // [k]: occurrences with the same pair k slots later
    std::vector<double> partners;  // [k]: occurrences with a slot k later, plus k earlier
  };
  int n_;
  std::size_t lag_;
  Eigen::MatrixXd C_;
  std::vector<Pair> pairs_;            // per nonzero pair, in order of first occurrence
  std::vector<std::int64_t> pair_of_;  // n x n: index into pairs_, or -1
  std::vector<double> lagged_;         // [k]: sum over series of (L - k)+
  double total_ = 0.0;                 // sum of the indicator series' lengths
};

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
