// RiteWeight (Russo et al., "Iterative trajectory reweighting ...", 2022): randomised iterative
// trajectory reweighting. Segments are (start frame, end frame) pairs of one trajectory; their
// weights are adjusted until, for every random clustering of the frames, the weighted
// cluster-to-cluster flux is stationary. Algorithm and defaults: docs/analysis.md, "`trails
// reweight` (RiteWeight)". Pure numerics: inputs are read-only, results are values, nothing is
// logged. Determinism: every draw comes from core::Rng::stream(seed, "riteweight"); assignment and
// all sums run in a fixed order, so results are bitwise identical for any n_threads. Cost per
// iteration: one nearest-centre search of every frame (analysis::assign, pruned), O(segments) for
// counts and weights, and one k x k LU solve for the stationary distribution. Throws
// core::InputError for bad sizes, indices, options, non-finite points or prior weights.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "trails/analysis/clustering.h"

namespace trails::analysis {

struct RiteWeightOptions {
  int n_clusters = 100;        // random centres per iteration (at most the number of frames used)
  int n_iterations = 5000;     // >= 1
  double learning_rate = 1.0;  // exponent of the update ratio, > 0 (1: the full update)
  int average_last = 1000;     // final weights: mean of the last min(this, n_iterations) iterates
  std::uint64_t seed = 0;
  std::vector<double> initial_weights;  // one per segment, >= 0 with a positive sum; empty: uniform
  int n_threads = 0;  // for the nearest-centre search; results do not depend on it
};

struct RiteWeightResult {
  std::vector<double> weights;  // one per segment, normalised to sum 1
  std::vector<double> drift;    // per iteration: sum_s |w_new - w_old|
  bool converged = false;       // the drift heuristic (docs/analysis.md)
  int n_clusters = 0;           // centres actually used: min(n_clusters, frames used)
};

// frames: n x d points (one row per frame). Segment s runs from frame starts[s] to ends[s].
// Only frames that some segment uses are cluster centres and are assigned.
RiteWeightResult riteweight(const PointsRef& frames, std::span<const std::int64_t> starts,
                            std::span<const std::int64_t> ends, const RiteWeightOptions& options);

// The converged heuristic on a drift trace: at least 20 iterations, and the mean drift of the
// last 10 % below half the mean of the first 10 % and below 1e-2.
bool riteweight_converged(std::span<const double> drift);

}  // namespace trails::analysis
