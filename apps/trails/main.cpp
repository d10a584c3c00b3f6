// The `trails` command: parses arguments, loads the configuration, calls one driver, and maps
// errors to exit codes (0 success, 2 bad configuration/input/usage, 1 runtime failure). The
// subcommands themselves are in campaign_commands.cpp and report_commands.cpp (commands.h).
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "commands.h"
#include "trails/core/error.h"

using namespace trails;

namespace {

void set_log_level(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("trails");
  logger->set_pattern("[%l] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level == "warning" ? "warn" : level));
}

// CLI11 would call an unknown first word a positional argument; name the commands instead.
bool unknown_command(CLI::App& app, int argc, char** argv) {
  if (argc <= 1 || argv[1][0] == '-') return false;
  for (const auto* sub : app.get_subcommands({})) {
    if (sub->get_name() == argv[1]) return false;
  }
  fmt::print(stderr,
             "error: unknown command '{}'; the commands are run, check, init, status, "
             "export, plot, msm and analyze (see trails --help)\n",
             argv[1]);
  return true;
}

// Runs the parsed subcommand; a core::Error maps to its exit code, anything else to 1.
int run_command(const std::vector<app::Command>& commands) {
  try {
    for (const auto& c : commands) {
      if (*c.sub) return c.run();
    }
  } catch (const core::Error& e) {
    std::fflush(stdout);
    fmt::print(stderr, "error: {}\n", e.describe());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Trails: adaptive molecular-dynamics sampling"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("trails ") + TRAILS_VERSION);
  std::string log_level = "warning";
  const std::vector<app::Command> commands = {
      app::add_run(app, log_level), app::add_check(app), app::add_init(app), app::add_status(app),
      app::add_export(app),         app::add_plot(app),  app::add_msm(app),  app::add_analyze(app)};

  if (unknown_command(app, argc, argv)) return 2;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  set_log_level(log_level);
  return run_command(commands);
}
