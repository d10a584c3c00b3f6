// EdgeGrid: a Cartesian grid whose bins have their own edges on each axis (the adaptive binners'
// bins, docs/spawning.md "Adaptive binning"). A point falls in bin i of an axis when
// edges[i] <= x < edges[i+1]; points outside are clipped into the edge bins; ids are row-major
// (last axis fastest), like UniformGrid's. The grid may bin fewer axes than the CV space has (the
// eigenvector binner bins axis 0 only): bin_of reads the first dim() coordinates.
// bin_of costs O(dim · log edges). Value type; JSON round trip is exact (doubles as JSON numbers).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

namespace trails::binning {

class EdgeGrid {
 public:
  EdgeGrid() = default;
  // Each axis needs at least two strictly increasing finite edges (TRAILS_CHECK).
  explicit EdgeGrid(std::vector<std::vector<double>> edges);

  int dim() const { return static_cast<int>(edges_.size()); }
  bool empty() const { return edges_.empty(); }
  std::int64_t total_bins() const { return total_; }
  const std::vector<double>& edges(int axis) const {
    return edges_[static_cast<std::size_t>(axis)];
  }
  int bins_on(int axis) const { return static_cast<int>(edges(axis).size()) - 1; }

  // The point needs at least dim() coordinates; a NaN coordinate throws core::InputError.
  std::int64_t bin_of(std::span<const double> point) const;
  // Centre of a bin on the binned axes (dim() values).
  std::vector<double> centre(std::int64_t bin) const;

  nlohmann::json to_json() const;
  static EdgeGrid from_json(const nlohmann::json& j);  // core::InputError when malformed

 private:
  std::vector<std::vector<double>> edges_;
  std::int64_t total_ = 0;
};

}  // namespace trails::binning
