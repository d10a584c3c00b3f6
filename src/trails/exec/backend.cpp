#include "trails/exec/backend.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/exec/mpi/mpi_executor.h"
#include "trails/exec/mpi/mpi_world.h"
#include "trails/exec/process/process_executor.h"
#include "trails/exec/scheduler/scheduler_executor.h"

namespace trails::exec {
namespace {

std::vector<std::string> worker_argv(const config::ExecutionSpec& spec) {
  if (!spec.worker_argv.empty()) return spec.worker_argv;
  return {std::filesystem::read_symlink("/proc/self/exe").string(), "worker"};
}

// The binding check of out-of-process slots, as make_executor applies it to threads: only for
// an engine that binds devices, on a plan that has some.
BindingCheck out_of_process_binding(const engines::Engine& engine, const DevicePlan& plan,
                                    const ExecutionOptions& placement) {
  return engine.capabilities().uses_devices && !plan.devices.empty() ? placement.binding_check
                                                                     : BindingCheck::Off;
}

// execution.persistent_workers: one `trails worker` process per slot (the device plan's slots,
// or max_workers unbound ones).
std::unique_ptr<Executor> make_worker_processes(const config::ExecutionSpec& spec,
                                                const engines::Engine& engine,
                                                const std::vector<std::uint8_t>& setup,
                                                const DevicePlan& plan) {
  const ExecutionOptions placement = placement_of(spec);
  WorkerOptions workers;
  workers.argv = worker_argv(spec);
  workers.engine_setup = setup;
  workers.binding_check = out_of_process_binding(engine, plan, placement);
  if (spec.walker_timeout_s) {
    workers.walker_timeout = std::chrono::milliseconds(
        static_cast<std::int64_t>(std::ceil(*spec.walker_timeout_s * 1000.0)));
  }
  if (!plan.devices.empty())
    return make_process_executor(workers, slots_for(plan), placement.max_in_flight);
  return make_process_executor(workers, std::max(1, spec.max_workers), placement.max_in_flight);
}

// execution.backend: mpi: the worker ranks of this MPI job, one slot each (mpi_slots),
// max_workers unused. The command made the world and refused a launch without ranks.
std::unique_ptr<Executor> make_worker_ranks(const config::ExecutionSpec& spec,
                                            const engines::Engine& engine,
                                            const std::vector<std::uint8_t>& setup,
                                            const DevicePlan& plan) {
  MpiWorld* world = MpiWorld::current();
  if (world == nullptr || world->size() < 2) {
    throw core::ConfigError(spec.config_file.string() +
                            ": execution.backend: mpi runs under an MPI launcher with at least "
                            "two ranks; start it as mpirun -n K trails ... (K >= 2)");
  }
  const ExecutionOptions placement = placement_of(spec);
  WorkerOptions workers;
  workers.engine_setup = setup;
  workers.binding_check = out_of_process_binding(engine, plan, placement);
  // execution.heartbeat_timeout: a rank silent this long ends the job (docs/execution.md).
  if (const auto t = spec.scheduler.heartbeat_timeout_s) {
    workers.heartbeat_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(*t * 1000.0));
    workers.heartbeat_interval =
        std::min(workers.heartbeat_interval, workers.heartbeat_timeout / 5);
  }
  return make_mpi_executor(*world, workers, mpi_slots(world->hosts(), plan, placement),
                           placement.max_in_flight);
}

// execution.backend: slurm | pbs | torque: arrays of `trails worker --pack` tasks whose job
// files live in jobs_dir (docs/execution.md, "Scheduler arrays"); the tasks submitted between
// two waits are one batch. With devices each array task packs its walkers on its own devices
// (the ones the scheduler gave it), else they run back to back, as in Trails-MD.
std::unique_ptr<Executor> make_arrays(const config::ExecutionSpec& spec,
                                      const std::vector<std::uint8_t>& setup) {
  SchedulerExecutorOptions o;
  o.kind = scheduler_kind(std::string(config::name(spec.backend)));
  o.keys = spec.scheduler;
  o.worker_argv = worker_argv(spec);
  o.engine_setup = setup;
  o.jobs_dir = spec.jobs_dir;
  o.placement = placement_of(spec);
  o.max_in_flight = std::max<std::size_t>(1, spec.max_in_flight);
  o.walker_timeout_s = spec.walker_timeout_s;
  return make_scheduler_executor(o);
}

}  // namespace

ExecutionOptions placement_of(const config::ExecutionSpec& spec) {
  ExecutionOptions o;
  o.devices = spec.devices;
  o.workers_per_device = spec.workers_per_device;
  o.max_workers = spec.max_workers;
  o.max_in_flight = spec.max_in_flight;
  o.binding_check = binding_check_of(spec.binding_check);
  o.devices_key = spec.devices_key;
  o.workers_key = spec.workers_key;
  return o;
}

VisibleDevices visible_devices_of(const config::ExecutionSpec& spec) {
  return config::is_scheduler(spec.backend) ? VisibleDevices{} : inherited_visible_devices();
}

DevicePlan device_plan_of(const config::ExecutionSpec& spec) {
  return resolve_devices(placement_of(spec), visible_devices_of(spec));
}

std::string slots_note(const config::ExecutionSpec& spec) {
  if (spec.backend == config::ExecutionBackend::Mpi) return " (MPI ranks)";
  if (config::is_scheduler(spec.backend)) {
    return fmt::format(" ({} array tasks, {} walker(s) each)", config::name(spec.backend),
                       spec.scheduler.walkers_per_task);
  }
  return spec.persistent_workers ? " (persistent processes)" : "";
}

std::unique_ptr<DescendantGuard> guard_walker_programs(const config::ExecutionSpec& spec) {
  const bool in_process =
      spec.backend == config::ExecutionBackend::Local && !spec.persistent_workers;
  if (!in_process || MpiWorld::current() != nullptr) return nullptr;
  return std::make_unique<DescendantGuard>();
}

std::unique_ptr<Executor> make_executor(const config::ExecutionSpec& spec,
                                        const engines::Engine& engine,
                                        const std::vector<std::uint8_t>& engine_setup,
                                        const DevicePlan& plan) {
  if (config::is_scheduler(spec.backend)) return make_arrays(spec, engine_setup);
  if (spec.backend == config::ExecutionBackend::Mpi)
    return make_worker_ranks(spec, engine, engine_setup, plan);
  if (spec.persistent_workers) return make_worker_processes(spec, engine, engine_setup, plan);
  return make_executor(engine, plan, placement_of(spec));
}

std::unique_ptr<Executor> make_executor(const config::ExecutionSpec& spec,
                                        const engines::Engine& engine,
                                        const std::vector<std::uint8_t>& engine_setup) {
  return make_executor(spec, engine, engine_setup, device_plan_of(spec));
}

}  // namespace trails::exec
