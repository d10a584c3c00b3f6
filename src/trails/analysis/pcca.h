// PCCA+ (Robust Perron Cluster Analysis; Deuflhard & Weber 2005, Röblitz & Weber 2013):
// fuzzy memberships of microstates in m metastable sets, crisp assignments, coarse-grained model.
// Pure numerics. Cost: O(n m^2) per objective evaluation of the (m-1)^2-parameter optimisation,
// after the O(n^3) eigen-decomposition that MsmModel already holds.
// Designed for reversible models, whose right eigenvectors are pi-orthonormal (then the
// crispness is bounded by m); a non-reversible model's real eigenvector parts are used as they are.
// Throws core::InputError unless 2 <= m < n_states.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "trails/analysis/msm_model.h"

namespace trails::analysis {

struct PccaOptions {
  bool optimize = true;     // false: inner-simplex memberships only (made feasible)
  int max_iterations = -1;  // Nelder-Mead iterations; -1: 200 * (m-1)^2
  double tolerance = 1e-8;  // Nelder-Mead: stop when simplex spreads in x and f are both below
};

struct Pcca {
  Eigen::MatrixXd memberships;         // n x m, rows sum to 1, entries in [0, 1]
  std::vector<int> assignments;        // n: argmax membership per state (lowest index on ties)
  std::vector<std::vector<int>> sets;  // m: state indices (into the model's active set) per set
  Eigen::VectorXd populations;         // m: sum of pi over each crisp set (Trails-MD's output)
  Eigen::VectorXd coarse_stationary;   // m: chi^T pi (fuzzy populations)
  Eigen::MatrixXd coarse_transition;   // m x m: (chi^T D chi)^-1 chi^T D T chi (Kube & Weber 2007)
  double crispness = 0.0;              // the maximised objective trace(diag(1/A_0j) A^T A), <= m
  int iterations = 0;                  // Nelder-Mead iterations used
};

// PCCA+ on the m dominant right eigenvectors of `model` (its right_eigenvectors(m)).
Pcca pcca(const MsmModel& model, int m, const PccaOptions& options = {});

// The coarse-grained transition matrix of memberships chi (n x m) on the n-state T with
// stationary distribution pi: (chi^T D chi)^-1 chi^T D T chi, D = diag(pi) (Kube & Weber 2007).
Eigen::MatrixXd coarse_transition_matrix(const Eigen::Ref<const Eigen::MatrixXd>& T,
                                         const Eigen::Ref<const Eigen::VectorXd>& pi,
                                         const Eigen::Ref<const Eigen::MatrixXd>& chi);

}  // namespace trails::analysis
