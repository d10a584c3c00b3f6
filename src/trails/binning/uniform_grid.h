// Uniform grid over a CV box (compat:uniform-grid): per-axis n_bins
// equal bins on [min, max]; points outside are clipped into the edge bins; bin ids are row-major
// (last axis fastest). Cheap value type; bin_of costs O(dim).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace trails::binning {

class UniformGrid {
 public:
  UniformGrid(std::vector<int> n_bins, std::vector<double> min_values,
              std::vector<double> max_values);

  int dim() const { return static_cast<int>(n_bins_.size()); }
  std::int64_t total_bins() const { return total_; }
  const std::vector<int>& n_bins() const { return n_bins_; }
  const std::vector<double>& min_values() const { return lo_; }
  const std::vector<double>& max_values() const { return hi_; }

  std::int64_t bin_of(std::span<const double> point) const;
  std::vector<double> centre(std::int64_t bin) const;

 private:
  std::vector<int> n_bins_;
  std::vector<double> lo_, hi_;
  std::int64_t total_ = 1;
};

// Share of a grid's bins that are occupied, 0 for a grid without bins: the exploration fraction
// of the run log, `trails status` and the MSM exploration floor (docs/analysis.md).
inline double occupied_fraction(std::int64_t occupied, std::int64_t total) {
  return total > 0 ? static_cast<double>(occupied) / static_cast<double>(total) : 0.0;
}

}  // namespace trails::binning
