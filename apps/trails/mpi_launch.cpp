// `trails run` and `trails swarm` as one MPI job (docs/execution.md, "MPI ranks"; commands.h).
#include <string>

#include <fmt/format.h>

#include "commands.h"
#include "trails/core/error.h"

namespace trails::app {

void check_mpi_launch(const config::ExecutionSpec& spec, std::string_view command,
                      const exec::MpiWorld* world) {
  const int ranks = world != nullptr ? world->size() : 1;
  const std::string file = spec.config_file.string();
  const bool mpi = spec.backend == config::ExecutionBackend::Mpi;
  const bool swarm = command == "swarm";
  const std::string_view tasks = swarm ? "trials" : "walkers";
  if (mpi && ranks < 2) {
    throw core::ConfigError(fmt::format(
        "{}: execution.backend: mpi runs as one MPI job (rank 0 drives the {}, ranks 1..K-1 "
        "run the {}), but this trails {} {}; launch it as `mpirun -n K trails {} {}` with K >= "
        "2 (as root add --allow-run-as-root; more ranks than cores need --oversubscribe), or "
        "`srun --mpi=pmix -n K trails {} {}` inside a SLURM allocation",
        file, swarm ? "swarm" : "campaign", tasks, command,
        world != nullptr ? "is the only rank" : "was not started by an MPI launcher", command, file,
        command, file));
  }
  if (!mpi && ranks > 1) {
    throw core::ConfigError(fmt::format(
        "{}: started as an MPI job of {} ranks, but execution.backend is {}; set "
        "execution.backend: mpi to run the {} on ranks 1..{}, or run trails without an MPI "
        "launcher",
        file, ranks, config::name(spec.backend), tasks, ranks - 1));
  }
}

// The worker ranks keep the stop handlers of `trails run` and `trails swarm`: the SIGTERM that
// mpirun forwards to every rank when it is stopped itself (or that a batch system sends every
// process of the job step) ends the walker a rank runs as rank 0's Stop message would, and the
// rank answers, so rank 0 keeps the walkers that finished (docs/execution.md, "Stopping"). A
// second signal, or the launcher's SIGKILL, still ends a rank at once.
int serve_as_worker_rank(exec::MpiWorld& world) {
  return world.serve(worker_engine_factory(), worker_program());
}

}  // namespace trails::app
