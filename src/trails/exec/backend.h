// The one backend table (docs/execution.md): an ExecutionSpec (config/execution_spec.h) in, the
// executor it names out, for every driver (the campaign, the swarm). In-process: serial, a
// thread pool or a device pool (make_executor of device_plan.h); out of process: persistent
// `trails worker` processes, the worker ranks of this MPI job, or a batch scheduler's arrays of
// `trails worker --pack` tasks. The out-of-process ones get the engine as the opaque setup bytes
// of engines::worker_engine_setup. Adding a backend: its room under exec/, one row here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trails/config/execution_spec.h"
#include "trails/engines/engine.h"
#include "trails/exec/executor.h"
#include "trails/exec/local/device_plan.h"
#include "trails/exec/process/descendant_guard.h"

namespace trails::exec {

// The device-pool part of a spec: devices, workers per device, max_workers, max_in_flight, the
// binding check and the keys named in messages.
ExecutionOptions placement_of(const config::ExecutionSpec& spec);
// The CUDA_VISIBLE_DEVICES the devices are counted in: this process's, except under a
// scheduler, whose array tasks get theirs from the scheduler on their node (unset here).
VisibleDevices visible_devices_of(const config::ExecutionSpec& spec);
// The spec's device plan (ConfigError naming the keys, as resolve_devices).
DevicePlan device_plan_of(const config::ExecutionSpec& spec);

// What the slots are, for a banner after the slot count: "" (threads, device pools),
// " (persistent processes)", " (MPI ranks)" or " (slurm array tasks, 2 walker(s) each)".
std::string slots_note(const config::ExecutionSpec& spec);

// The guard a driver (`trails run`, `trails swarm`) holds while the walkers of `spec` run, so
// that a kill -9 of the driver leaves none of their programs running (docs/execution.md, "No
// walker outlives its driver"): a DescendantGuard for the in-process backends (serial, threads,
// device pools), whose walkers' programs are the driver's own children; null for the others,
// whose walkers are guarded where they run (a `trails worker` ends its walker when its driver's
// pipe closes, an MPI rank holds its own guard) or belong to a batch scheduler, and null in a
// process that is an MPI rank (it has its guard already). Call it on the main thread before
// any walker starts; the watcher is this program. Throws EngineError when the guard cannot
// start: the run does not go on unguarded.
std::unique_ptr<DescendantGuard> guard_walker_programs(const config::ExecutionSpec& spec);

// The executor of `spec` over `engine` (in-process backends) or `engine_setup` (out of
// process); `plan` is device_plan_of(spec). Throws ConfigError for backend mpi without an MPI
// world of at least two ranks (exec/mpi/mpi_world.h), EngineError when a worker cannot start.
std::unique_ptr<Executor> make_executor(const config::ExecutionSpec& spec,
                                        const engines::Engine& engine,
                                        const std::vector<std::uint8_t>& engine_setup,
                                        const DevicePlan& plan);
// The same with the plan resolved here.
std::unique_ptr<Executor> make_executor(const config::ExecutionSpec& spec,
                                        const engines::Engine& engine,
                                        const std::vector<std::uint8_t>& engine_setup);

}  // namespace trails::exec
