// The array-task side of the scheduler backends (docs/execution.md, "Scheduler arrays"):
// `trails worker --pack FILE --results DIR [--scratch DIR]` reads a pack file (job_files.h),
// builds the engine and one warm instance from its Setup, runs its tasks back to back (job
// packing) through run_guarded, and writes each walker's result and success marker. With a
// scratch directory the results are written there first and copied back to DIR once, after the
// last walker (one copy per array task, none of the per-walker files on the shared filesystem
// until then). Only the driver reads the results and commits them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "trails/exec/worker.h"

namespace trails::exec {

struct PackRun {
  std::filesystem::path pack;
  std::filesystem::path results_dir;
  std::optional<std::filesystem::path> scratch;
};

// 0 when every walker succeeded, 1 when one failed (its marker says so) or the engine could not
// be built (the error goes to stderr, the array task's log). Throws InputError/CorruptionError
// for an unreadable pack, StoreError when a result cannot be written.
int run_pack(const PackRun& run, const EngineFactory& make_engine);

}  // namespace trails::exec
