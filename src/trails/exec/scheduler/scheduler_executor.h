// The scheduler-array executor (execution.backend: slurm | pbs | torque; docs/execution.md,
// "Scheduler arrays"). Tasks submitted between two waits form one batch: the driver writes
// them as pack files (walkers_per_task per array element, job_files.h), submits arrays of at
// most the scheduler's array limit (detected, or execution.max_array_size) with at most
// max_in_flight elements running, polls the queue and the success markers, and streams each
// walker's result as its marker appears. Walkers without a success marker run again, alone, in
// up to max_retries further attempts; a walker whose result already stands in the jobs
// directory for the very same task (a resumed run) is not submitted at all. The array tasks
// run `trails worker --pack` (pack_worker.h); only the driver reads results. A running element
// whose heartbeat stops (heartbeat_timeout) or whose walker passes walker_timeout is cancelled
// alone (task_heartbeat.h) and its unfinished walkers count as without a marker. Contract of
// executor.h; submit errors that are not transient and a scheduler that cannot be reached
// surface from next_completed as EngineError.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trails/config/scheduler_config.h"
#include "trails/exec/executor.h"
#include "trails/exec/local/device_plan.h"
#include "trails/exec/scheduler/job_script.h"

namespace trails::exec {

struct SchedulerExecutorOptions {
  SchedulerKind kind = SchedulerKind::Slurm;
  config::SchedulerConfig keys;
  std::vector<std::string> worker_argv;    // {"/path/to/trails", "worker"}
  std::vector<std::uint8_t> engine_setup;  // shipped in every pack's Setup
  std::filesystem::path jobs_dir;          // one iter_N directory per batch below it
  std::size_t max_in_flight = 1;           // walkers submitted and unfinished at once
  // The devices of each array task (logical, in the CUDA_VISIBLE_DEVICES the scheduler sets),
  // workers_per_device and binding_check; no devices: a pack runs back to back on one instance.
  ExecutionOptions placement;
  // A walker running longer than this has its array element cancelled (then max_retries).
  std::optional<double> walker_timeout_s;
};

// Asks the scheduler for its array limit once (a missing answer: no limit, with a warning).
// Throws ConfigError when the scheduler's commands cannot be run at all.
std::unique_ptr<Executor> make_scheduler_executor(const SchedulerExecutorOptions& options);

}  // namespace trails::exec
