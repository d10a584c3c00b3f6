// The worker side of the out-of-process executors (docs/execution.md, "Persistent worker
// processes", "MPI ranks"): one loop for every transport (channel.h): `trails worker` over
// pipes, a worker rank over MPI. It waits for Setup,
// builds its engine and the one warm instance of its slot, answers Hello, then runs every Task
// with run_guarded and sends its Result, with a Heartbeat every Setup.heartbeat_ms from a side
// thread while the task runs. exec/ knows only the engine interface: the caller supplies how
// an engine is built from Setup's opaque engine_setup bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "trails/engines/engine.h"

namespace trails::exec {

class Channel;

using EngineFactory =
    std::function<std::unique_ptr<engines::Engine>(std::span<const std::uint8_t> engine_setup)>;

// Serves one driver until Shutdown (also in place of Setup: no work for this worker) or end of
// input (returns 0). A failure to build the engine, or a message out of protocol, is sent as an
// Error message (returns 1); a driver that went away (a send fails) returns 1. `program` goes
// into Hello ("trails 0.1.0 worker").
int serve_worker(Channel& channel, const EngineFactory& make_engine, const std::string& program);
// The same over a pipe pair: frames read from in_fd, written to out_fd (FdChannel).
int serve_worker(int in_fd, int out_fd, const EngineFactory& make_engine,
                 const std::string& program);

}  // namespace trails::exec
