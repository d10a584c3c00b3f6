// The MPI executor (`execution.backend: mpi`; docs/execution.md, "MPI ranks"): rank 0's pool of
// the worker ranks 1..K-1 of one MPI job, one slot per worker rank, each rank keeping its warm
// engine instance for the whole run. The scheduling is the thread pool's (one driver-side thread
// per rank waits on it) and the protocol is the process pool's (worker_link.h over MpiChannel),
// so the contract of executor.h holds unchanged and results never depend on which rank ran a
// task. A walker that fails or throws in its rank is a Failed result like anywhere else; a rank
// that is lost (silent past heartbeat_timeout, out of protocol) ends the whole job through
// MpiWorld::abort, since MPI cannot replace a rank, and a rank that dies makes the launcher end
// the job: what the store committed stays committed (docs/reliability.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "trails/exec/local/device_plan.h"
#include "trails/exec/mpi/mpi_world.h"
#include "trails/exec/process/process_executor.h"

namespace trails::exec {

// The slots of the worker ranks, slot i served by rank i+1, from the host of each rank
// (`hosts`, rank 0 first). Without devices: unbound slots. With devices: the device plan per
// host: the n-th worker rank on a host (in rank order) gets device n / workers_per_device,
// worker n % workers_per_device, as the n-th slot of slots_for(plan); more worker ranks on a host
// than the plan has slots is a ConfigError naming the keys. Throws ConfigError for no worker rank.
std::vector<engines::Slot> mpi_slots(const std::vector<std::string>& hosts, const DevicePlan& plan,
                                     const ExecutionOptions& keys);

// One slot per worker rank of `world` (slots from mpi_slots), all greeted (Setup, Hello) before
// this returns; uses options.engine_setup and the heartbeat and start timeouts (argv and set_env
// are the process pool's; walker_timeout must be empty: a rank cannot be stopped alone).
// Throws EngineError when a rank cannot start its engine, quoting its error.
std::unique_ptr<Executor> make_mpi_executor(MpiWorld& world, const WorkerOptions& options,
                                            std::vector<engines::Slot> slots,
                                            std::size_t max_in_flight = 0);

}  // namespace trails::exec
