#include "trails/store/position_grid.h"

#include <cmath>

#include <fmt/format.h>

namespace trails::store {

std::int64_t grid_index(double x, double step) { return std::llround(x / step); }

void snap_to_grid(std::span<double> values, double step) {
  for (double& x : values) x = grid_value(grid_index(x, step), step);
}

std::optional<std::string> off_grid(std::span<const double> values, double step) {
  const double limit = static_cast<double>(kMaxGridIndex);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double units = values[i] / step;
    if (std::isfinite(units) && std::fabs(units) < limit) continue;
    return fmt::format(
        "coordinate {} is {}, which output.position_precision {} cannot store (at most {} grid "
        "steps from the origin)",
        i, values[i], step, kMaxGridIndex);
  }
  return std::nullopt;
}

}  // namespace trails::store
