// The array-task side of the scheduler backends (docs/execution.md, "Scheduler arrays"):
// `trails worker --pack FILE --results DIR [--scratch DIR] [--devices 0,1
// --workers-per-device N --binding-check MODE] [--heartbeat SECONDS]` reads a pack file
// (job_files.h), builds the engine from its Setup and runs its tasks through one executor of
// the device plan code (device_plan.h): without devices one warm instance runs them back to
// back (job packing); with devices they are packed on the task's devices, workers_per_device
// warm instances on each, logical indices counted in the CUDA_VISIBLE_DEVICES the scheduler set.
// Each walker's result and success marker are written as it finishes. With a scratch directory
// the results are written there first and copied back to DIR once, after the last walker (one
// copy per array task). While walkers run, a heartbeat file is kept in DIR (task_heartbeat.h).
// Only the driver reads the results and commits them.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trails/exec/local/device_plan.h"
#include "trails/exec/wire/worker.h"

namespace trails::exec {

struct PackRun {
  std::filesystem::path pack;
  std::filesystem::path results_dir;
  std::optional<std::filesystem::path> scratch;
  // devices, workers_per_device and binding_check; no devices: one instance, back to back.
  ExecutionOptions placement;
  std::chrono::milliseconds heartbeat_period{30000};
};

// The arguments after `trails worker` that make an array task run `placement` with heartbeats
// every `heartbeat_period` (what the job script passes; --pack and --results come from it).
std::vector<std::string> pack_worker_arguments(const ExecutionOptions& placement,
                                               std::chrono::milliseconds heartbeat_period);

// 0 when every walker succeeded, 1 when one failed (its marker says so) or the engine or the
// device plan could not be built (the error goes to stderr, the array task's log). Throws
// InputError/CorruptionError for an unreadable pack, StoreError when a result cannot be written.
int run_pack(const PackRun& run, const EngineFactory& make_engine);

}  // namespace trails::exec
