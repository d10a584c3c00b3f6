// The segments of a run's committed history that an export selects (`trails export --iteration
// N --walker W`), each with its walker-local clock (docs/analysis.md#exports): a segment starts
// at the time of the frame it restarted from (its lineage parent; 0 for a walker started from the
// initial structure), and frame f (0-based) of a segment lies (f + 1) × stride MD steps later, as
// the shards' step/time datasets count within the segment (docs/file-formats.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "trails/store/records.h"

namespace trails::report {

struct FrameSelection {
  std::optional<std::int64_t> iteration;  // none: every committed iteration
  std::optional<std::int64_t> walker;     // none: every walker
};

struct ExportSegment {
  const store::IterationRecord* record = nullptr;
  const store::WalkerRecord* walker = nullptr;  // an ok walker
  std::size_t first_row = 0;                    // row of frame 0 in record->cvs
  double start_time = 0.0;                      // time of the parent frame (engine time unit)
  std::int64_t start_step = 0;                  // MD steps from the root to the parent frame

  double time(std::int64_t frame) const {
    return start_time + static_cast<double>((frame + 1) * record->stride) * record->dt;
  }
  std::int64_t step(std::int64_t frame) const { return start_step + (frame + 1) * record->stride; }
};

// The ok walkers' segments of `records` (ledger order) that `selection` keeps. An iteration that
// is not committed, or a walker index that no selected iteration has, is a UsageError naming the
// value and the valid range (exit 2, before anything is written).
std::vector<ExportSegment> select_segments(const std::vector<store::IterationRecord>& records,
                                           const FrameSelection& selection,
                                           const std::filesystem::path& run_dir);

}  // namespace trails::report
