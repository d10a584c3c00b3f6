// Per-axis bin edges of the adaptive binners (compat:adaptive-binning, docs/spawning.md
// "Adaptive binning"): pure functions of one axis' values (the pool's CV column), its box
// [lo, hi] and the axis' bin count nb. Values outside the box are clipped into it first (the bins
// clip them the same way). Every result starts at lo, ends at hi and increases strictly. Cost:
// O(values + n_fine) per axis.
#pragma once

#include <span>
#include <vector>

namespace trails::binning {

// nb equal bins on [lo, hi].
std::vector<double> uniform_edges(double lo, double hi, int nb);

// Equal-resistance edges: resistance 1/density (a histogram of n_f = max(n_fine, 4 nb) slices on
// the occupied range [a, b], moving average of width `smoothing`, floored at 1e-9, capped at
// 50 × the median resistance); nb − 1 edges at equal steps of the integrated resistance from a to
// b, plus lo and hi. Bins are narrow where frames are scarce (barriers, the frontier) and wide in
// the basins. nb < 3 or no spread: uniform.
std::vector<double> gradient_edges(std::span<const double> values, double lo, double hi, int nb,
                                   int n_fine, int smoothing);

// Minimal adaptive binning: narrow bins of half-width eps = max(0.02 (b − a), 1e-4 (hi − lo))
// around the extremes a, b of the occupied range and around the bottleneck slice of each
// direction, plus max(nb − 2 × specials, 2) even bins on [a, b]. The bin count depends on the
// data. nb < 6 or no spread: uniform.
std::vector<double> mab_edges(std::span<const double> values, double lo, double hi, int nb,
                              int n_fine);

// The bottleneck slice centres of MAB (one per direction, possibly equal): a histogram of n_fine
// slices on [lo, hi]; going forward, z_i = ln h_i − ln (frames beyond slice i), over the occupied
// slices but the last; the highest z wins (the first on a tie); the same backwards. Fewer than 3
// occupied slices: none.
std::vector<double> mab_bottlenecks(std::span<const double> values, double lo, double hi,
                                    int n_fine);

}  // namespace trails::binning
