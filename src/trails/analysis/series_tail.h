// The steady-state tail of a convergence series, as `trails analyze` reports it for VAMP-2 and
// the implied timescales (docs/analysis.md, "`trails analyze`"). Pure. UsageError (exit 2) for a
// discard fraction outside [0, 1).
#pragma once

#include <cstddef>
#include <span>

namespace trails::analysis {

// Trails-MD's steady-state tail (compat:steady-state-tail) applied to a series: drop floor(n ×
// discard_fraction) leading values; mean of the finite tail values; plateau = mean(second half) /
// mean(first half) of the tail (h = len/2; NaN when len < 2 or the first-half mean is 0).
struct SeriesTail {
  std::size_t n_skip = 0;
  std::size_t n_tail = 0;
  double mean = 0.0;     // NaN when the tail has no finite value
  double plateau = 0.0;  // NaN when undefined
};
SeriesTail series_tail(std::span<const double> values, double discard_fraction);

}  // namespace trails::analysis
