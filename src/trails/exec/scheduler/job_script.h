// The batch script of one scheduler array (docs/execution.md, "Scheduler arrays", with
// examples): #SBATCH or #PBS directives from the execution keys (as Trails-MD's), then the
// module lines verbatim, then one line that picks this element's pack file from the manifest
// and runs `trails worker --pack` on it. Pure text: nothing is written or run here.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trails/config/scheduler_config.h"

namespace trails::exec {

enum class SchedulerKind { Slurm, Pbs, Torque };
// "slurm" | "pbs" | "torque"; throws ConfigError for another name.
SchedulerKind scheduler_kind(const std::string& backend);
std::string_view name(SchedulerKind kind);

struct ArrayJob {
  int elements = 0;                      // array indices 0..elements-1
  std::optional<int> throttle;           // SLURM %N (elements running at once)
  std::filesystem::path manifest;        // line i+1: the pack file of element i
  std::filesystem::path results_dir;     // where walkers' results and markers go
  std::filesystem::path log_dir;         // per-element stdout/stderr
  std::vector<std::string> worker_argv;  // e.g. {"/usr/bin/trails", "worker", ...}
  // GPUs the task's device plan needs (execution.devices: logical 0..max); requested when
  // neither execution.gpus_per_task nor execution.gres asks for them already.
  int gpus = 0;
};

std::string render_job_script(SchedulerKind kind, const config::SchedulerConfig& keys,
                              const ArrayJob& job);

// Seconds of a walltime (D-HH:MM:SS, HH:MM:SS, MM:SS, or a bare number of minutes);
// std::nullopt when unparseable (then no wait ceiling is derived from it).
std::optional<double> walltime_seconds(const std::string& walltime);

// A shell word that the shell reads back as `text`, whatever it holds.
std::string shell_quote(const std::string& text);

}  // namespace trails::exec
