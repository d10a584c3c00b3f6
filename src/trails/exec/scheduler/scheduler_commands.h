// How Trails speaks to a batch scheduler's commands (docs/execution.md, "Scheduler arrays"):
// the argument vectors of submit, status, cancel and limit queries, and the readings of their
// output (as Trails-MD's for SLURM and PBS; Torque like PBS with -t arrays). Pure functions of
// text, so the protocol is tested against recorded outputs
// (tests/exec/scheduler_commands_test.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "trails/exec/scheduler/job_script.h"

namespace trails::exec {

std::vector<std::string> submit_command(SchedulerKind kind, const std::string& script);
std::vector<std::string> status_command(SchedulerKind kind, const std::string& job_id);
std::vector<std::string> cancel_command(SchedulerKind kind, const std::string& job_id);
// Cancels one element of an array job: SLURM JOBID_E; PBS/Torque the index put between the
// brackets of "1234[].server" (1234[E].server).
std::vector<std::string> cancel_element_command(SchedulerKind kind, const std::string& job_id,
                                                std::size_t element);
// The command whose output states the largest array (SLURM MaxArraySize, PBS max_array_size,
// Torque max_job_array_size).
std::vector<std::string> limits_command(SchedulerKind kind);

// The job id a successful submit printed; std::nullopt when it printed none.
std::optional<std::string> parse_job_id(SchedulerKind kind, const std::string& stdout_text);
// Whether the status command's output (exit status 0) still lists an element of the job.
bool job_active(SchedulerKind kind, const std::string& job_id, const std::string& stdout_text);
// Whether a failed status command says the scheduler no longer knows the job (it ended long
// enough ago: SLURM "Invalid job id specified", PBS "Job has finished" / "Unknown Job Id"),
// as opposed to a failure to ask (a controller that is down: poll again).
bool job_unknown(SchedulerKind kind, const std::string& message);
// The number of elements one array may hold; std::nullopt when the output does not say.
std::optional<int> parse_max_array_size(SchedulerKind kind, const std::string& stdout_text);
// Whether a failed submit's message reads as a passing condition (QOS or association submit
// limits, a busy or restarting controller, timeouts) worth retrying after a pause.
bool transient_submit_error(const std::string& message);

}  // namespace trails::exec
