// Positions at a storage precision (output.position_precision; docs/file-formats.md,
// "Quantised positions"): each coordinate becomes the nearest multiple of the grid step, as an
// XTC file keeps it. The shard writer stores the integer multiples, the shard reader gives back
// multiple × step, and the campaign puts its in-memory frames on the same grid with
// snap_to_grid(), so a frame read back from a shard and the frame in memory are the same bits.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace trails::store {

// The largest grid index a coordinate may have (2^30): the differences the shard stores between
// neighbouring atoms and frames then fit in 32 bits (docs/file-formats.md).
inline constexpr std::int64_t kMaxGridIndex = std::int64_t{1} << 30;

// Nearest grid index of `x` (halves away from zero). Requires a finite x within range.
std::int64_t grid_index(double x, double step);
// The coordinate a grid index stands for.
inline double grid_value(std::int64_t index, double step) {
  return static_cast<double>(index) * step;
}
// Every value replaced by grid_value(grid_index(x)); requires in-range values (off_grid()).
void snap_to_grid(std::span<double> values, double step);
// Why `values` cannot be stored on the grid (the first coordinate beyond kMaxGridIndex steps
// from the origin, or not finite), or none.
std::optional<std::string> off_grid(std::span<const double> values, double step);

}  // namespace trails::store
