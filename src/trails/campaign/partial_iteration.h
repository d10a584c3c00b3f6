// The walkers of an iteration that finished before a stop signal (docs/reliability.md, "Signals,
// child processes and concurrent runs"; docs/file-formats.md, "partial/"): kept outside the
// commit protocol, in RUN_DIR/partial/iter_NNNNNN/walker_NNNNNN.trwf, so that --resume does not
// run them again. Each file holds the walker's task and its result in the wire format
// (exec/wire/wire.h: doubles travel bitwise), written to a temporary, fsynced and renamed. A result
// is used only for a task whose encoding is byte for byte the one the resumed iteration makes (same
// start configuration, seed, steps and stride), so a stale or foreign file is never used; the
// resumed iteration is then bitwise the uninterrupted one. The iteration's commit removes them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <vector>

#include "trails/engines/segment.h"

namespace trails::campaign {

std::filesystem::path partial_dir(const std::filesystem::path& run_dir);

// Writes each ok result of `results` (by walker, as `tasks`) not in `already` (walkers that were
// loaded from partial/ in the first place). Returns how many are kept in partial/ in all.
std::size_t save_partial(const std::filesystem::path& run_dir, std::int64_t iteration,
                         const std::vector<engines::SegmentTask>& tasks,
                         const std::vector<engines::SegmentResult>& results,
                         const std::vector<char>& already);

// The kept results of `iteration` whose task is exactly tasks[walker], by walker (task_id set to
// the task's). A damaged file is ignored (the walker runs again) with a warning.
std::map<std::int64_t, engines::SegmentResult> load_partial(
    const std::filesystem::path& run_dir, std::int64_t iteration,
    const std::vector<engines::SegmentTask>& tasks);

// Removes partial/ (after a commit: what it held is committed or no longer needed).
void clear_partial(const std::filesystem::path& run_dir);

}  // namespace trails::campaign
