// The weighted-ensemble resampler (docs/spawning.md, "Weighted ensemble"; compat:we-resampler):
// pure bookkeeping on walker weights and bin labels, no frames, no files. Per occupied bin, with
// a walker target t: merge the two lightest while the bin holds more than t walkers (the survivor
// keeps its identity with probability ∝ its weight), split the heaviest in halves while it holds
// fewer, then equalise (merge to t−1, split back to t) until max ≤ 4·min (at most 200 rounds).
// Bins are concatenated in ascending label order. Weight is conserved: the total after
// resampling must equal the total before to 1e-9 (relative), else InternalError.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "trails/core/rng.h"

namespace trails::spawners {

struct WeResampled {
  std::vector<std::int64_t> parents;  // index into the input walkers of each output walker
  std::vector<double> weights;        // same order; Σ equals the input's Σ
};

// Walker targets per occupied bin: Trails-MD's bin-balanced deal of a budget of `budget`
// walkers (slots dealt round-robin over the occupied bins in ascending population order, stable;
// never weight-proportional). Returns a target for each bin label, 0 for empty ones. Throws
// core::InputError when more bins are occupied than the budget has walkers.
std::vector<int> budget_targets(std::span<const std::int64_t> labels, std::int64_t n_labels,
                                int budget);

// `per_bin` walkers in every occupied bin (spawning.we_allocation: per_bin, the target of
// spawning.we_target_per_bin): the total follows the number of occupied bins.
std::vector<int> per_bin_targets(std::span<const std::int64_t> labels, std::int64_t n_labels,
                                 int per_bin);

// Resamples walkers (weights[i], bin labels[i] in [0, n_labels)) to targets[label] walkers per
// occupied bin. `equalise`: Trails-MD's in-loop spread control (the standalone resampler of
// Trails-MD has none).
WeResampled we_resample(std::span<const double> weights, std::span<const std::int64_t> labels,
                        std::span<const int> targets, bool equalise, core::Rng& rng);

}  // namespace trails::spawners
