// lagged_pairs (model.h): time-lagged pairs inside walker segments only (docs/cvs.md,
// fix:lagged-pairs-segments).
#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/learned/model.h"

namespace trails::learned {

std::vector<std::pair<std::int64_t, std::int64_t>> lagged_pairs(
    std::span<const std::int64_t> segment_rows, int lag) {
  if (lag < 1) throw core::InputError(fmt::format("learned model: lag {} < 1 frame", lag));
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  std::int64_t offset = 0;
  for (std::int64_t rows : segment_rows) {
    if (rows < 0) throw core::InputError(fmt::format("learned model: segment of {} rows", rows));
    for (std::int64_t t = 0; t + lag < rows; ++t) pairs.emplace_back(offset + t, offset + t + lag);
    offset += rows;
  }
  return pairs;
}

}  // namespace trails::learned
