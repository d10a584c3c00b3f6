// `trails worker` (commands.h): internal, hidden from --help. The process executor starts one
// per slot and speaks the wire format with it over stdin/stdout (docs/execution.md,
// "Persistent worker processes"); not meant to be run by hand.
#include <unistd.h>

#include <csignal>

#include "commands.h"
#include "trails/core/error.h"
#include "trails/engines/registry.h"

namespace trails::app {

Command add_worker(CLI::App& app) {
  auto* worker = app.add_subcommand(
      "worker", "Internal: a persistent worker process serving the wire protocol on stdin/stdout");
  worker->group("");  // hidden: the process executor starts it
  return {worker, [] {
            std::signal(SIGPIPE, SIG_IGN);  // a driver that left: writes fail with EPIPE
            // The protocol keeps its own copy of stdout; fd 1 then goes to stderr, so a stray
            // print of a library cannot corrupt the frames.
            const int protocol = ::dup(STDOUT_FILENO);
            if (protocol < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
              throw core::EngineError("trails worker: cannot set up its stdout");
            }
            return exec::serve_worker(STDIN_FILENO, protocol, worker_engine_factory(),
                                      worker_program());
          }};
}

exec::EngineFactory worker_engine_factory() {
  return [](std::span<const std::uint8_t> setup) { return engines::make_engine_from_setup(setup); };
}

std::string worker_program() { return std::string("trails ") + TRAILS_VERSION + " worker"; }

}  // namespace trails::app
