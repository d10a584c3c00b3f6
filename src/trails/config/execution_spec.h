// Where a driver's segments run, as one typed value (docs/execution.md): the backend and its
// settings, filled from a campaign's `execution:` block and spawning.max_workers or from a
// swarm's `execution:` block and pathgennie.devices. exec::make_executor (exec/backend.h) is the
// one table that turns it into an executor, as engines::make_engine does with an EngineSpec; so
// no driver matches backend names, and exec never sees YAML or a driver's configuration.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trails/config/scheduler_config.h"

namespace trails::config {

struct CampaignConfig;
struct SwarmConfig;

// execution.backend: local (threads, device pools, worker processes), mpi (the worker ranks of
// one MPI job), or a batch scheduler's arrays.
enum class ExecutionBackend { Local, Mpi, Slurm, Pbs, Torque };
// "local" | "mpi" | "slurm" | "pbs" | "torque" (the schema admits no other; another reads as
// local).
ExecutionBackend execution_backend_of(std::string_view name);
std::string_view name(ExecutionBackend backend);
bool is_scheduler(ExecutionBackend backend);

struct ExecutionSpec {
  ExecutionBackend backend = ExecutionBackend::Local;
  bool persistent_workers = false;  // local: one `trails worker` process per slot
  // Device pool: logical indices (empty: max_workers unbound slots), workers per device, and the
  // keys that set them (named in error messages, so each driver's own keys appear there).
  std::vector<int> devices;
  int workers_per_device = 1;
  std::string devices_key = "execution.devices";
  std::string workers_key = "execution.workers_per_device";
  int max_workers = 1;                 // without devices: <= 1 serial, else threads or processes
  std::size_t max_in_flight = 0;       // tasks submitted and unfinished at once; 0: twice the slots
  std::string binding_check = "warn";  // warn | fail | off
  std::optional<double> walker_timeout_s;  // worker processes and array tasks
  // Scheduler arrays' keys; heartbeat_timeout_s also bounds a silent MPI rank.
  SchedulerConfig scheduler;
  std::filesystem::path jobs_dir;     // scheduler arrays: one iter_N directory per batch below it
  std::filesystem::path config_file;  // for messages
  // The `trails worker` command line; empty: this program (/proc/self/exe) with "worker".
  std::vector<std::string> worker_argv;
};

// A campaign: execution.*, spawning.max_workers, a whole iteration in flight, RUN_DIR/jobs.
ExecutionSpec execution_spec_of(const CampaignConfig& config);
// A swarm: execution.backend, persistent_workers, walker_timeout, binding_check and
// heartbeat_timeout, on pathgennie.devices x pathgennie.workers_per_device (one unbound slot
// without devices); at most one task per slot in flight (the swarm submits one per free slot).
ExecutionSpec execution_spec_of(const SwarmConfig& config);

}  // namespace trails::config
