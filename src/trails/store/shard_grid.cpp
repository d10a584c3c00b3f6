#include "trails/store/shard_grid.h"

#include "trails/core/error.h"

namespace trails::store::detail {
namespace {

std::uint32_t zigzag(std::int64_t d) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(d) << 1) ^
                                    static_cast<std::uint64_t>(d >> 63));
}

std::int64_t unzigzag(std::uint32_t u) {
  return static_cast<std::int64_t>(u >> 1) ^ -static_cast<std::int64_t>(u & 1u);
}

}  // namespace

void encode_grid_row(std::span<const std::int64_t> row, std::span<const std::int64_t> previous,
                     std::size_t dim, std::span<std::uint32_t> out) {
  TRAILS_CHECK(out.size() == row.size() && (previous.empty() || previous.size() == row.size()) &&
                   dim > 0 && row.size() % dim == 0,
               "a grid row is atoms x dim values");
  if (!previous.empty()) {
    for (std::size_t i = 0; i < row.size(); ++i) out[i] = zigzag(row[i] - previous[i]);
    return;
  }
  for (std::size_t i = 0; i < row.size(); ++i) {
    out[i] = zigzag(i < dim ? row[i] : row[i] - row[i - dim]);
  }
}

void decode_grid_rows(std::span<const std::uint32_t> words, std::size_t rows, std::size_t dim,
                      std::span<std::int64_t> out) {
  const std::size_t n = out.size();
  TRAILS_CHECK(rows > 0 && words.size() == rows * n && dim > 0 && n % dim == 0,
               "grid rows are whole rows of atoms x dim values");
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = unzigzag(words[i]) + (i < dim ? 0 : out[i - dim]);
  }
  for (std::size_t r = 1; r < rows; ++r) {
    for (std::size_t i = 0; i < n; ++i) out[i] += unzigzag(words[r * n + i]);
  }
}

}  // namespace trails::store::detail
