// How a shard stores quantised positions (private to src/trails/store/; docs/file-formats.md,
// "Quantised positions"). Rows (frames) come in groups of kGridGroupRows, one HDF5 chunk each.
// The first row of a group holds each atom's grid index as the difference to the atom before
// it (atom 0: the index itself), per axis; every later row holds the difference to the row
// before it. Differences are zigzag-coded into uint32 (0, -1, 1, -2, … → 0, 1, 2, 3, …), so
// that HDF5's shuffle and deflate see mostly zero high bytes: neighbouring atoms and successive
// frames are close, as XTC exploits. A frame is read back from its group's first row on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace trails::store::detail {

inline constexpr std::int64_t kGridGroupRows = 4;

// Stored words of one row of grid indices `row` (atoms × dim). `previous`: the row before it in
// its group, or empty for a group's first row.
void encode_grid_row(std::span<const std::int64_t> row, std::span<const std::int64_t> previous,
                     std::size_t dim, std::span<std::uint32_t> out);

// Grid indices of the last of `rows` stored rows that start a group (`words`: rows × row_values).
void decode_grid_rows(std::span<const std::uint32_t> words, std::size_t rows, std::size_t dim,
                      std::span<std::int64_t> out);

}  // namespace trails::store::detail
