// Small systems with known slow processes for the learned-model tests (built here, not read
// from files): a three-state Markov chain embedded in noisy features, two basins with fast
// intra-basin noise, and overdamped Langevin dynamics on the Müller–Brown potential.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "trails/learned/model.h"

namespace trails::learned::test {

struct System {
  TrainingData data;
  std::vector<int> states;     // the true state of every row (chain and basins)
  Eigen::MatrixXd transition;  // the true transition matrix per frame (chain)
};

// Walker-major rows, segments of `frames` rows each, pairs at `lag` from lagged_pairs().
// The chain 0 ↔ 1 ↔ 2 (T below); each row: the state's centre (a triangle, or three points on
// a line) + N(0, 0.1²) noise in 2 features, then 2 features of N(0, 0.1²) noise alone.
System three_state_chain(int walkers, int frames, int lag, std::uint64_t seed,
                         bool on_a_line = false);
System two_basins(int walkers, int frames, int lag, std::uint64_t seed);
System muller_brown(int walkers, int frames, int lag, std::uint64_t seed);

}  // namespace trails::learned::test
