// The `trails` subcommands: each add_* function registers one subcommand, its options and
// flags on `app` (in the order `trails --help` lists them) and returns what runs it once the
// command line has been parsed. Private to apps/trails; errors propagate to main().
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace trails::app {

struct Command {
  CLI::App* sub = nullptr;   // true after parsing when this subcommand was given
  std::function<int()> run;  // its exit code
};

// campaign_commands.cpp
Command add_run(CLI::App& app, std::string& log_level);
Command add_check(CLI::App& app);
Command add_init(CLI::App& app);
// report_commands.cpp
Command add_status(CLI::App& app);
Command add_advise(CLI::App& app);
Command add_export(CLI::App& app);
Command add_plot(CLI::App& app);
Command add_msm(CLI::App& app);
Command add_analyze(CLI::App& app);
Command add_path(CLI::App& app);
Command add_log(CLI::App& app);
Command add_reweight(CLI::App& app);
Command add_report(CLI::App& app);
// swarm_command.cpp
Command add_swarm(CLI::App& app);
// worker_command.cpp
Command add_worker(CLI::App& app);

}  // namespace trails::app
