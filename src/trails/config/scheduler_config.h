// The keys of the scheduler-array backends (execution.backend: slurm | pbs | torque;
// docs/execution.md, "Scheduler arrays"), Trails-MD's scheduler keys plus Trails' own
// walkers_per_task and scratch. Plain validated values: the schema checked types and ranges.
// exec/scheduler/scheduler_executor.h reads them; nothing here touches a scheduler.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace trails::config {

struct SchedulerConfig {
  std::optional<std::string> partition;  // SLURM partition, PBS queue
  std::optional<std::string> account;
  std::string walltime = "01:00:00";  // D-HH:MM:SS, HH:MM:SS, MM:SS or minutes
  int cpus_per_task = 1;
  int gpus_per_task = 0;
  std::optional<std::string> gres;
  std::optional<std::string> memory;
  std::vector<std::string> extra_directives;  // one directive each, prefixed when bare
  std::vector<std::string> module_loads;      // shell lines run before the worker, verbatim
  std::string job_name = "trails-md";
  std::optional<int> max_array_size;  // none: the scheduler's own limit, detected
  std::optional<int> max_in_flight;   // array tasks running at once
  int submit_retry_limit = 20;
  double submit_retry_interval_s = 15.0;
  double submit_timeout_s = 60.0;
  double poll_interval_s = 30.0;
  std::optional<double> wait_timeout_s;  // none: 2 x walltime + 3600 s
  double marker_grace_s = 30.0;
  int max_retries = 1;
  int walkers_per_task = 1;  // job packing: walkers per array task
  // A running array task whose heartbeat counter has not moved for this long is hung and is
  // cancelled; the task writes one every heartbeat_timeout / kHeartbeatsPerTimeout. None: 300 s
  // for array tasks, the worker link's 30 s for MPI ranks (execution.heartbeat_timeout).
  std::optional<double> heartbeat_timeout_s;
  static constexpr double kArrayHeartbeatTimeoutS = 300.0;
  static constexpr int kHeartbeatsPerTimeout = 5;
  std::optional<std::string> scratch;  // node-local staging; none: $TMPDIR when set
};

}  // namespace trails::config
