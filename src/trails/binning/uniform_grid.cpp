// UniformGrid: equal-width bins per axis, edge clipping, row-major ids (last axis fastest).
// Constructor arguments are checked with TRAILS_CHECK (bad values are a caller bug: config has
// already validated them); a NaN coordinate is bad data from the user's CVs -> InputError.
#include "trails/binning/uniform_grid.h"

#include <cmath>
#include <limits>
#include <string>

#include "trails/core/error.h"

namespace trails::binning {

UniformGrid::UniformGrid(std::vector<int> n_bins, std::vector<double> min_values,
                         std::vector<double> max_values)
    : n_bins_(std::move(n_bins)), lo_(std::move(min_values)), hi_(std::move(max_values)) {
  TRAILS_CHECK(!n_bins_.empty(), "UniformGrid needs at least one axis");
  TRAILS_CHECK(lo_.size() == n_bins_.size() && hi_.size() == n_bins_.size(),
               "UniformGrid: n_bins, min_values and max_values must have the same length");
  for (std::size_t d = 0; d < n_bins_.size(); ++d) {
    const std::string axis = "axis " + std::to_string(d);
    TRAILS_CHECK(n_bins_[d] >= 1, axis + " needs n_bins >= 1");
    TRAILS_CHECK(std::isfinite(lo_[d]) && std::isfinite(hi_[d]) && lo_[d] < hi_[d],
                 axis + " needs finite min < max");
    // Guard the product: ids are int64 and a silent overflow would alias bins.
    TRAILS_CHECK(total_ <= std::numeric_limits<std::int64_t>::max() / n_bins_[d],
                 "UniformGrid: total number of bins overflows int64");
    total_ *= n_bins_[d];
  }
}

std::int64_t UniformGrid::bin_of(std::span<const double> point) const {
  TRAILS_CHECK(point.size() == n_bins_.size(), "UniformGrid::bin_of: point has wrong dimension");
  std::int64_t id = 0;
  for (std::size_t d = 0; d < n_bins_.size(); ++d) {
    const double x = point[d];
    if (std::isnan(x)) {
      throw core::InputError("collective variable " + std::to_string(d) +
                             " is NaN; cannot assign the frame to a bin");
    }
    const int n = n_bins_[d];
    const double width = (hi_[d] - lo_[d]) / n;
    // Clip in floating point before converting: casting +-inf or huge values to int is UB.
    double idx = std::floor((x - lo_[d]) / width);
    if (!(idx >= 0.0)) idx = 0.0;
    if (idx > n - 1) idx = n - 1;
    id = id * n + static_cast<std::int64_t>(idx);
  }
  return id;
}

std::vector<double> UniformGrid::centre(std::int64_t bin) const {
  TRAILS_CHECK(bin >= 0 && bin < total_, "UniformGrid::centre: bin id out of range");
  std::vector<double> c(n_bins_.size());
  for (std::size_t k = n_bins_.size(); k-- > 0;) {
    const int n = n_bins_[k];
    const auto i = static_cast<double>(bin % n);
    bin /= n;
    const double width = (hi_[k] - lo_[k]) / n;
    c[k] = lo_[k] + (i + 0.5) * width;
  }
  return c;
}

}  // namespace trails::binning
