// One batch of a scheduler array executor (scheduler_executor.h): every attempt, chunk and
// poll of the walkers handed over together, run on the executor's driver thread. Not for other
// callers: the executor owns the threading.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <vector>

#include "trails/exec/scheduler/scheduler_executor.h"

namespace trails::exec::detail {

// Sleeps for the duration unless the executor stops first; false when it stops.
using Pause = std::function<bool(std::chrono::milliseconds)>;
using Deliver = std::function<void(engines::SegmentResult&&)>;

// Runs the batch to the end: deliver is called once per task with its final result (in marker
// order). array_limit: the elements one array may hold (none: no limit).
void run_scheduler_batch(const SchedulerExecutorOptions& options, std::optional<int> array_limit,
                         std::vector<engines::SegmentTask> tasks, const Deliver& deliver,
                         const Pause& pause);

}  // namespace trails::exec::detail
