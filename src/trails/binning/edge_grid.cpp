// EdgeGrid: per-axis edges, clipping into the edge bins, row-major ids.
#include "trails/binning/edge_grid.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "trails/core/error.h"

namespace trails::binning {

EdgeGrid::EdgeGrid(std::vector<std::vector<double>> edges) : edges_(std::move(edges)), total_(1) {
  TRAILS_CHECK(!edges_.empty(), "EdgeGrid needs at least one axis");
  for (std::size_t d = 0; d < edges_.size(); ++d) {
    const auto& e = edges_[d];
    const std::string axis = "EdgeGrid axis " + std::to_string(d);
    TRAILS_CHECK(e.size() >= 2, axis + " needs at least two edges");
    for (std::size_t i = 0; i < e.size(); ++i) {
      TRAILS_CHECK(std::isfinite(e[i]), axis + " has a non-finite edge");
      TRAILS_CHECK(i == 0 || e[i] > e[i - 1], axis + " edges must increase strictly");
    }
    const auto n = static_cast<std::int64_t>(e.size() - 1);
    TRAILS_CHECK(total_ <= std::numeric_limits<std::int64_t>::max() / n,
                 "EdgeGrid: total number of bins overflows int64");
    total_ *= n;
  }
}

std::int64_t EdgeGrid::bin_of(std::span<const double> point) const {
  TRAILS_CHECK(point.size() >= edges_.size(), "EdgeGrid::bin_of: point has too few coordinates");
  std::int64_t id = 0;
  for (std::size_t d = 0; d < edges_.size(); ++d) {
    const double x = point[d];
    if (std::isnan(x)) {
      throw core::InputError("collective variable " + std::to_string(d) +
                             " is NaN; cannot assign the frame to a bin");
    }
    const auto& e = edges_[d];
    const auto n = static_cast<std::int64_t>(e.size() - 1);
    // searchsorted(edges, x, side=right) - 1, clipped to [0, n-1].
    auto i = static_cast<std::int64_t>(std::upper_bound(e.begin(), e.end(), x) - e.begin()) - 1;
    i = std::clamp<std::int64_t>(i, 0, n - 1);
    id = id * n + i;
  }
  return id;
}

std::vector<double> EdgeGrid::centre(std::int64_t bin) const {
  TRAILS_CHECK(bin >= 0 && bin < total_, "EdgeGrid::centre: bin id out of range");
  std::vector<double> c(edges_.size());
  for (std::size_t k = edges_.size(); k-- > 0;) {
    const auto n = static_cast<std::int64_t>(edges_[k].size() - 1);
    const auto i = static_cast<std::size_t>(bin % n);
    bin /= n;
    c[k] = 0.5 * (edges_[k][i] + edges_[k][i + 1]);
  }
  return c;
}

nlohmann::json EdgeGrid::to_json() const { return nlohmann::json(edges_); }

EdgeGrid EdgeGrid::from_json(const nlohmann::json& j) {
  std::vector<std::vector<double>> edges;
  try {
    edges = j.get<std::vector<std::vector<double>>>();
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(std::string("malformed bin edges: ") + e.what());
  }
  try {
    return EdgeGrid(std::move(edges));
  } catch (const core::Error& e) {
    throw core::InputError(std::string("malformed bin edges: ") + e.what());
  }
}

}  // namespace trails::binning
