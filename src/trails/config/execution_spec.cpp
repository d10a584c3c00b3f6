#include "trails/config/execution_spec.h"

#include "trails/config/campaign_config.h"
#include "trails/config/swarm_config.h"

namespace trails::config {

ExecutionBackend execution_backend_of(std::string_view name) {
  if (name == "mpi") return ExecutionBackend::Mpi;
  if (name == "slurm") return ExecutionBackend::Slurm;
  if (name == "pbs") return ExecutionBackend::Pbs;
  if (name == "torque") return ExecutionBackend::Torque;
  return ExecutionBackend::Local;
}

std::string_view name(ExecutionBackend backend) {
  switch (backend) {
    case ExecutionBackend::Mpi:
      return "mpi";
    case ExecutionBackend::Slurm:
      return "slurm";
    case ExecutionBackend::Pbs:
      return "pbs";
    case ExecutionBackend::Torque:
      return "torque";
    case ExecutionBackend::Local:
      break;
  }
  return "local";
}

bool is_scheduler(ExecutionBackend backend) {
  return backend == ExecutionBackend::Slurm || backend == ExecutionBackend::Pbs ||
         backend == ExecutionBackend::Torque;
}

namespace {

// The keys both drivers read from their execution: block.
ExecutionSpec common_spec(const ExecutionConfig& e, const std::filesystem::path& file) {
  ExecutionSpec s;
  s.backend = execution_backend_of(e.backend);
  s.persistent_workers = e.persistent_workers;
  s.binding_check = e.binding_check;
  s.walker_timeout_s = e.walker_timeout;
  s.scheduler = e.scheduler;
  s.config_file = file;
  return s;
}

}  // namespace

ExecutionSpec execution_spec_of(const CampaignConfig& config) {
  ExecutionSpec s = common_spec(config.execution, config.config_file);
  s.devices = config.execution.devices;
  s.devices_key = config.execution.devices_key;
  s.workers_per_device = config.execution.workers_per_device;
  s.max_workers = config.spawning.max_workers;
  // A whole iteration in flight: the driver submits every walker at once (docs/execution.md).
  s.max_in_flight = static_cast<std::size_t>(config.spawning.walker);
  s.jobs_dir = config.outdir / "jobs";
  return s;
}

ExecutionSpec execution_spec_of(const SwarmConfig& config) {
  ExecutionSpec s = common_spec(config.md.execution, config.config_file);
  s.devices = config.swarm.devices;
  s.workers_per_device = config.swarm.workers_per_device;
  s.devices_key = "pathgennie.devices";
  s.workers_key = "pathgennie.workers_per_device";
  s.max_workers = 1;
  return s;
}

}  // namespace trails::config
