// `trails worker` (commands.h): internal, hidden from --help. The process executor starts one
// per slot and speaks the wire format with it over stdin/stdout (docs/execution.md,
// "Persistent worker processes"); with --pack it is a scheduler array task instead, running the
// walkers of one pack file and writing their results (docs/execution.md, "Scheduler arrays").
// Not meant to be run by hand.
#include <unistd.h>

#include <csignal>
#include <memory>

#include "commands.h"
#include "trails/core/error.h"
#include "trails/engines/registry.h"
#include "trails/exec/scheduler/pack_worker.h"

namespace trails::app {

Command add_worker(CLI::App& app) {
  auto* worker = app.add_subcommand(
      "worker", "Internal: a persistent worker process serving the wire protocol on stdin/stdout");
  worker->group("");  // hidden: the process executor starts it
  auto pack = std::make_shared<exec::PackRun>();
  auto scratch = std::make_shared<std::string>();
  auto* pack_option =
      worker->add_option("--pack", pack->pack, "A scheduler array task's pack file");
  worker->add_option("--results", pack->results_dir, "Where the pack's results go")
      ->needs(pack_option);
  worker->add_option("--scratch", *scratch, "Node-local staging directory")->needs(pack_option);
  // The array task's device plan and heartbeat (exec::pack_worker_arguments writes these).
  auto binding = std::make_shared<std::string>("warn");
  auto heartbeat_s = std::make_shared<double>(30.0);
  worker->add_option("--devices", pack->placement.devices, "Logical devices of the task")
      ->delimiter(',')
      ->needs(pack_option);
  worker->add_option("--workers-per-device", pack->placement.workers_per_device)
      ->needs(pack_option);
  worker->add_option("--binding-check", *binding)
      ->check(CLI::IsMember({"warn", "fail", "off"}))
      ->needs(pack_option);
  worker->add_option("--heartbeat", *heartbeat_s, "Seconds between heartbeats")
      ->check(CLI::PositiveNumber)
      ->needs(pack_option);
  return {worker, [pack, scratch, binding, heartbeat_s] {
            if (!pack->pack.empty()) {
              if (pack->results_dir.empty())
                throw core::UsageError("trails worker --pack needs --results DIR");
              if (!scratch->empty()) pack->scratch = *scratch;
              pack->placement.binding_check = exec::binding_check_of(*binding);
              pack->heartbeat_period =
                  std::chrono::milliseconds(static_cast<std::int64_t>(*heartbeat_s * 1000.0));
              return exec::run_pack(*pack, worker_engine_factory());
            }
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
