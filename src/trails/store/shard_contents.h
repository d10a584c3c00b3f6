// What a shard holds, written into an open HDF5 file (private to src/trails/store/; layout in
// docs/file-formats.md): the positions, appended whole frames at a time under the record
// policy, and everything else of the record at finish. ShardBuilder (shard.h) owns the file and
// calls these in a fixed order, so the bytes depend on the record only.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "trails/store/h5_writer.h"
#include "trails/store/records.h"

namespace trails::store::detail {

// Appends whole frames of the full system to the H5MD positions dataset `d` (holding `first`
// frames) under the record policy: the kept atoms only, as float64 or float32 (HDF5 rounds to
// nearest on the write), or as grid indices (shard_grid.h; `grid_row` holds the last appended
// row's indices between calls). A selection is gathered a block of frames at a time, so no
// second full copy of the coordinates is made.
void append_positions(const H5Context& h, hid_t d, const ShardLayout& layout, hsize_t first,
                      std::span<const double> positions, std::vector<std::int64_t>& grid_row);

// Everything but the positions: H5MD metadata, step/time, boxes, observables, parameters and
// /trails, into the file whose /particles/walkers/position/value the builder has filled.
void write_contents(const H5Writer& w, hid_t file, hid_t walkers, hid_t position,
                    const IterationRecord& r);

}  // namespace trails::store::detail
