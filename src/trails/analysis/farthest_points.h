// Greedy farthest-point (max–min) selection (Gonzalez 1985), the core of Trails-MD's FPS spawner
// (compat:fps-spawner): start from `first`, keep D_i = min over chosen s of ||x_i - x_s||, and
// repeatedly add argmax D (ties: lowest index) until m points are chosen. Deterministic given
// `first`. Pure numerics. Cost O(n m dim), memory O(n).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace trails::analysis {

// points: n x dim, row-major; 0 <= first < n; 1 <= m <= n. Returns the m chosen indices in
// selection order (first is `first`). Throws core::InputError for bad arguments.
std::vector<std::int64_t> farthest_points(std::span<const double> points, int dim,
                                          std::int64_t first, std::int64_t m);

// The index of the point nearest to `target` (Euclidean; ties: lowest index).
std::int64_t nearest_point(std::span<const double> points, int dim, std::span<const double> target);

}  // namespace trails::analysis
