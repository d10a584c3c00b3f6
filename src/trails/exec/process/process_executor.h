// The process-pool executor (`execution.persistent_workers: true`; docs/execution.md,
// "Persistent worker processes"): one `trails worker` process per slot, started once and kept
// warm across tasks and iterations, spoken to in the wire format over its stdin and stdout. A
// worker that dies (a segfault, an OOM kill, kill -9 from outside), exceeds walker_timeout or
// stops heartbeating fails only the walker it was running — a Failed result that says why and
// carries the worker's stderr tail — and a fresh worker takes the slot's next task. A worker
// ends with its whole process tree (its walker's programs too). A stop signal of the driver
// reaches the workers as a Stop message (worker_link.h). The
// scheduling is the thread pool's (one driver-side thread per slot waits on its worker), so the
// contract of executor.h holds unchanged. exec/ knows no configuration: the caller gives the
// worker's argument vector and the opaque engine setup it ships in the Setup message.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trails/exec/executor.h"
#include "trails/exec/local/device_plan.h"

namespace trails::exec {

struct WorkerOptions {
  std::vector<std::string> argv;           // the worker program, e.g. {"/usr/bin/trails", "worker"}
  std::vector<std::uint8_t> engine_setup;  // shipped as-is in Setup (engines/registry.h)
  std::vector<std::pair<std::string, std::string>> set_env;  // added to the workers' environment
  // Kills a worker whose walker runs longer (execution.walker_timeout); none: no limit.
  std::optional<std::chrono::milliseconds> walker_timeout;
  // The worker sends a Heartbeat this often while a task runs; one that is silent for
  // heartbeat_timeout is taken for hung (frozen, stopped, deadlocked) and killed.
  std::chrono::milliseconds heartbeat_interval{1000};
  std::chrono::milliseconds heartbeat_timeout{30000};
  // How long a worker may take from its start to its Hello (building the engine).
  std::chrono::milliseconds start_timeout{600000};
  // execution.binding_check on each result's placement record (binding_check.h); the caller
  // passes Off for engines that do not use devices.
  BindingCheck binding_check = BindingCheck::Off;
};

// One worker per slot (slot i has index i), all started (and their Hello checked) before this
// returns; max_in_flight 0 means twice the slot count. Throws EngineError when a worker cannot
// start (naming the slot and quoting its error or stderr), ConfigError without slots.
std::unique_ptr<Executor> make_process_executor(const WorkerOptions& options,
                                                std::vector<engines::Slot> slots,
                                                std::size_t max_in_flight = 0);
// `workers` slots without devices.
std::unique_ptr<Executor> make_process_executor(const WorkerOptions& options, int workers,
                                                std::size_t max_in_flight = 0);

}  // namespace trails::exec
