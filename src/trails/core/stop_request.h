// A stop that arrives by message instead of a signal (docs/execution.md, "Stopping"): a worker
// process or MPI rank whose driver was stopped sets the same flag as core/signals.h's handler,
// so its running walker ends as the driver's own walkers do. Thread- and signal-safe.
#pragma once

namespace trails::core {

// Stops this process as if `signal` had arrived (no message printed). The first stop, signal or
// request, wins; stop_signal() (signals.h) then returns it.
void request_stop(int signal) noexcept;

}  // namespace trails::core
