// The `trails` subcommands: each add_* function registers one subcommand, its options and
// flags on `app` (in the order `trails --help` lists them) and returns what runs it once the
// command line has been parsed. Private to apps/trails; errors propagate to main().
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "trails/config/execution_spec.h"
#include "trails/exec/mpi/mpi_world.h"
#include "trails/exec/wire/worker.h"

namespace trails::app {

struct Command {
  CLI::App* sub = nullptr;   // true after parsing when this subcommand was given
  std::function<int()> run;  // its exit code
};

// campaign_commands.cpp
Command add_run(CLI::App& app, std::string& log_level);
Command add_check(CLI::App& app);
Command add_init(CLI::App& app);
// report_commands.cpp (add_msm: msm_command.cpp)
Command add_status(CLI::App& app);
Command add_advise(CLI::App& app);
Command add_export(CLI::App& app);
Command add_project(CLI::App& app);
Command add_plot(CLI::App& app);
Command add_msm(CLI::App& app);
Command add_analyze(CLI::App& app);
Command add_path(CLI::App& app);
Command add_log(CLI::App& app);
Command add_reweight(CLI::App& app);
Command add_report(CLI::App& app);
// swarm_command.cpp
Command add_swarm(CLI::App& app);
// Runs the swarm configuration `config_file` (as `trails swarm`), with a line per chain every
// `verbose_every` cycles when > 0 (PathGennie's --verbose).
int run_swarm_config(const std::filesystem::path& config_file, bool resume, int verbose_every);
// legacy_commands.cpp: PathGennie's unbind, unfold and fold command lines
Command add_unbind(CLI::App& app);
Command add_unfold(CLI::App& app);
Command add_fold(CLI::App& app);
// pca_command.cpp
Command add_pca(CLI::App& app);
// worker_command.cpp
Command add_worker(CLI::App& app);
// integrate_command.cpp
Command add_integrate(CLI::App& app);
// What every worker (a `trails worker` process, an MPI worker rank) builds its engine with, from
// the Setup message's engine setup, and the program name its Hello gives.
exec::EngineFactory worker_engine_factory();
std::string worker_program();
// mpi_launch.cpp: execution.backend: mpi and the launch agree (docs/execution.md, "MPI ranks"):
// an mpi configuration needs worker ranks, and ranks need an mpi configuration (else K runs would
// race for one run directory); ConfigError naming the file and `trails COMMAND`. Nothing is
// written before this check.
void check_mpi_launch(const config::ExecutionSpec& spec, std::string_view command,
                      const exec::MpiWorld* world);
// Ranks 1..K-1 of an MPI job: persistent workers of rank 0 until it sends Shutdown.
int serve_as_worker_rank(exec::MpiWorld& world);

}  // namespace trails::app
