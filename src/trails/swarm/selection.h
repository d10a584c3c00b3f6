// Softmax selection over a swarm's progress (docs/swarm.md, "Selection"): progress values are
// min–max normalised to [0, 1], p_i ∝ exp((ŝ_i − 1)/σ), uniform when the spread is below 1e-9,
// and a trial whose progress is not finite (a failed or exploded trial) gets probability 0.
// Pure numerics; no I/O, no state.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace trails::swarm {

// The spread below which every finite trial is equally good (PathGennie's rule).
inline constexpr double kFlatSpread = 1e-9;

// ŝ_i = (m_i − min m)/(max m − min m) over the finite m; NaN for non-finite m; 0.5 for every
// finite m when the spread is below kFlatSpread.
std::vector<double> normalised_progress(std::span<const double> metric);

// Selection probabilities (sum 1 over the finite trials). Empty when no trial is finite.
// sigma must be > 0.
std::vector<double> selection_probabilities(std::span<const double> metric, double sigma);

// The index k with P(k) = p_k for u uniform in [0, 1): the first k whose cumulative sum exceeds
// u·Σp (a trial of probability 0 is never chosen). p must hold a positive entry.
std::size_t draw_index(std::span<const double> p, double u);

// Shannon entropy −Σ p ln p (nats) of a selection, 0 for a certain choice.
double entropy(std::span<const double> p);

}  // namespace trails::swarm
