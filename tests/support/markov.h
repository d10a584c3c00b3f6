// Markov chains in tests: a trajectory sampled from a transition matrix, and a count model
// whose active set is every state. Part of trails_test_support (docs/architecture.md, "Tests").
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "trails/analysis/msm_model.h"
#include "trails/core/rng.h"

namespace trails::test_support {

// `steps` states from state 0: each next state by inverting the row's cumulative sum at one
// uniform draw of core::Rng(seed).
inline std::vector<int> sample_chain(const Eigen::MatrixXd& P, int steps, std::uint64_t seed) {
  core::Rng rng(seed);
  std::vector<int> traj;
  traj.reserve(static_cast<std::size_t>(steps));
  int s = 0;
  for (int t = 0; t < steps; ++t) {
    traj.push_back(s);
    const double u = rng.uniform();
    double acc = 0.0;
    int next = static_cast<int>(P.cols()) - 1;
    for (int j = 0; j < P.cols(); ++j) {
      acc += P(s, j);
      if (u < acc) {
        next = j;
        break;
      }
    }
    s = next;
  }
  return traj;
}

// The counts as a model over all their states, one connected set.
inline analysis::CountModel counts_model_of(const Eigen::MatrixXd& C) {
  analysis::CountModel m;
  m.counts = C;
  m.state_histogram = C.rowwise().sum();
  for (int i = 0; i < C.rows(); ++i) m.active_set.push_back(i), m.active_index.push_back(i);
  m.connected_sets = {m.active_set};
  return m;
}

}  // namespace trails::test_support
