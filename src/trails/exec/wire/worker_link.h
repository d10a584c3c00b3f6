// The driver's half of the worker protocol (docs/execution.md, "Persistent worker processes",
// "MPI ranks"), over any Channel: greet() sends Setup and checks the Hello; exchange() sends one
// Task and waits for its Result, reading Heartbeats meanwhile. Whatever goes wrong with the
// worker (its stream ends, a deadline passes, it goes silent, speaks out of protocol or answers
// another task) comes back as a Lost value saying why; what to do about a lost worker is the
// executor's (the process pool starts a new one; MPI, which cannot replace a rank, ends the job).
// A stop signal of the driver (core/signals.h) reaches the worker as a Stop message while
// exchange() waits: the worker ends its walker and answers (docs/execution.md, "Stopping").
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <variant>

#include "trails/engines/segment.h"
#include "trails/exec/wire/channel.h"

namespace trails::exec {

// Why a worker was lost. `ended`: its stream closed (or it stopped reading), so its own exit
// status says more; otherwise it is still there and must be ended by force.
struct Lost {
  std::string why;
  bool ended = false;
  bool stopped = false;  // lost while ending its walker for a stop signal
};

// Sends `setup` and waits for the Hello until `deadline`; std::nullopt when the worker answered
// for setup.slot, else what went wrong ("failed: <its error>", "sent no hello within 600 s").
// An ended stream gives "ended before its hello" with ended set.
std::optional<Lost> greet(Channel& channel, const wire::Setup& setup,
                          std::chrono::milliseconds start_timeout);

struct ExchangeLimits {
  std::optional<std::chrono::milliseconds> walker_timeout;  // none: no limit
  std::chrono::milliseconds heartbeat_timeout{30000};       // silence taken for a hung worker
  // After a Stop: how long the worker may take to answer before it is taken for lost.
  std::chrono::milliseconds stop_grace{10000};
};

// Runs `task` on the worker behind `channel`. `worker` names it in the reasons ("its worker
// (pid 4242, slot 1)"). Once this process is stopped, sends the worker a Stop and waits at most
// stop_grace more; a worker that does not answer by then is Lost with `stopped` set.
std::variant<engines::SegmentResult, Lost> exchange(Channel& channel,
                                                    const engines::SegmentTask& task,
                                                    const ExchangeLimits& limits,
                                                    const std::string& worker);

// "2.5 s"
std::string seconds_text(std::chrono::milliseconds d);

}  // namespace trails::exec
