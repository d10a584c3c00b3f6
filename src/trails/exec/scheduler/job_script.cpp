// render_job_script and walltime_seconds (job_script.h). Directive order follows Trails-MD's
// scripts (docs/execution.md, "The rendered scripts"), so a site's checks of them keep working.
#include "trails/exec/scheduler/job_script.h"

#include <fmt/format.h>

#include <sstream>

#include "trails/core/error.h"

namespace trails::exec {
namespace {

std::vector<std::string> slurm_directives(const config::SchedulerConfig& k, const ArrayJob& job) {
  std::vector<std::string> d = {
      "--job-name=" + k.job_name,
      fmt::format("--array=0-{}{}", job.elements - 1,
                  job.throttle ? fmt::format("%{}", *job.throttle) : std::string()),
      "--time=" + k.walltime,
      fmt::format("--cpus-per-task={}", k.cpus_per_task),
      "--output=" + (job.log_dir / "%A_%a.out").string(),
      "--error=" + (job.log_dir / "%A_%a.err").string()};
  if (k.partition) d.push_back("--partition=" + *k.partition);
  if (k.account) d.push_back("--account=" + *k.account);
  if (k.gpus_per_task > 0) d.push_back(fmt::format("--gpus-per-task={}", k.gpus_per_task));
  if (k.gres) d.push_back("--gres=" + *k.gres);
  if (job.gpus > 0 && k.gpus_per_task == 0 && !k.gres)
    d.push_back(fmt::format("--gres=gpu:{}", job.gpus));
  if (k.memory) d.push_back("--mem=" + *k.memory);
  return d;
}

std::vector<std::string> pbs_directives(SchedulerKind kind, const config::SchedulerConfig& k,
                                        const ArrayJob& job) {
  std::vector<std::string> d = {"-N " + k.job_name, "-V"};
  const int gpus = k.gpus_per_task > 0 ? k.gpus_per_task : job.gpus;
  if (kind == SchedulerKind::Torque) {
    // Torque: -t arrays, nodes/ppn resources, memory as its own limit.
    d.push_back(fmt::format("-t 0-{}", job.elements - 1));
    d.push_back(fmt::format("-l nodes=1:ppn={}{}", k.cpus_per_task,
                            gpus > 0 ? fmt::format(":gpus={}", gpus) : ""));
    if (k.memory) d.push_back("-l mem=" + *k.memory);
  } else {
    d.push_back(fmt::format("-J 0-{}", job.elements - 1));
    d.push_back(fmt::format("-l select=1:ncpus={}{}{}", k.cpus_per_task,
                            gpus > 0 ? fmt::format(":ngpus={}", gpus) : "",
                            k.memory ? ":mem=" + *k.memory : ""));
  }
  d.push_back("-l walltime=" + k.walltime);
  d.push_back("-o " + job.log_dir.string() + "/");
  d.push_back("-e " + job.log_dir.string() + "/");
  if (k.partition) d.push_back("-q " + *k.partition);
  if (k.account) d.push_back("-A " + *k.account);
  return d;
}

}  // namespace

SchedulerKind scheduler_kind(const std::string& backend) {
  if (backend == "slurm") return SchedulerKind::Slurm;
  if (backend == "pbs") return SchedulerKind::Pbs;
  if (backend == "torque") return SchedulerKind::Torque;
  throw core::ConfigError("execution.backend: " + backend + " is not a scheduler backend");
}

std::string_view name(SchedulerKind kind) {
  switch (kind) {
    case SchedulerKind::Slurm:
      return "slurm";
    case SchedulerKind::Pbs:
      return "pbs";
    case SchedulerKind::Torque:
      return "torque";
  }
  return "?";
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string render_job_script(SchedulerKind kind, const config::SchedulerConfig& keys,
                              const ArrayJob& job) {
  TRAILS_CHECK(job.elements > 0 && !job.worker_argv.empty(), "an array job has work");
  const bool slurm = kind == SchedulerKind::Slurm;
  const std::string prefix = slurm ? "#SBATCH " : "#PBS ";
  std::ostringstream s;
  s << "#!/bin/bash\n";
  for (const std::string& d : slurm ? slurm_directives(keys, job) : pbs_directives(kind, keys, job))
    s << prefix << d << "\n";
  // An extra directive may be given bare ("--qos=long") or whole ("#SBATCH --qos=long").
  for (const std::string& d : keys.extra_directives)
    s << (d.starts_with("#") ? d : prefix + d) << "\n";
  s << "set -euo pipefail\n";
  for (const std::string& line : keys.module_loads) s << line << "\n";
  const std::string index = slurm                           ? "SLURM_ARRAY_TASK_ID"
                            : kind == SchedulerKind::Torque ? "PBS_ARRAYID"
                                                            : "PBS_ARRAY_INDEX";
  // The task's wall time starts here (the worker reports walker time against it).
  s << "export TRAILS_TASK_START=$(date +%s.%N)\n";
  s << "MANIFEST=" << shell_quote(job.manifest.string()) << "\n";
  s << "PACK=$(sed -n \"$((${" << index << "}+1))p\" \"$MANIFEST\")\n";
  // Node-local staging: execution.scratch (may name variables, expanded on the node), else $TMPDIR.
  s << "SCRATCH=\"" << (keys.scratch ? *keys.scratch : std::string("${TMPDIR:-}")) << "\"\n";
  for (const std::string& arg : job.worker_argv)
    s << (&arg == &job.worker_argv.front() ? "" : " ") << shell_quote(arg);
  s << " --pack \"$PACK\" --results " << shell_quote(job.results_dir.string())
    << " ${SCRATCH:+--scratch \"$SCRATCH\"}\n";
  return s.str();
}

std::optional<double> walltime_seconds(const std::string& walltime) {
  std::vector<long> parts;
  long days = 0;
  std::string rest = walltime;
  if (const auto dash = rest.find('-'); dash != std::string::npos) {
    try {
      days = std::stol(rest.substr(0, dash));
    } catch (const std::exception&) {
      return std::nullopt;
    }
    rest = rest.substr(dash + 1);
  }
  std::istringstream in(rest);
  std::string field;
  while (std::getline(in, field, ':')) {
    if (field.empty() || field.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    parts.push_back(std::stol(field));
  }
  if (parts.empty() || parts.size() > 3) return std::nullopt;
  double seconds = 0;
  const bool with_days = walltime.find('-') != std::string::npos;
  if (with_days && parts.size() < 3) {
    // D-HH and D-HH:MM
    seconds = static_cast<double>(parts[0] * 3600 + (parts.size() == 2 ? parts[1] * 60 : 0));
  } else if (parts.size() == 1) {
    seconds = static_cast<double>(parts[0]) * 60.0;  // bare number: minutes (SLURM's reading)
  } else if (parts.size() == 2) {
    seconds = static_cast<double>(parts[0] * 60 + parts[1]);
  } else {
    seconds = static_cast<double>(parts[0] * 3600 + parts[1] * 60 + parts[2]);
  }
  return seconds + static_cast<double>(days) * 86400.0;
}

}  // namespace trails::exec
