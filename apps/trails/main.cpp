// The `trails` command: parses arguments, loads the configuration, calls one driver, and maps
// errors to exit codes (0 success, 2 bad configuration/input/usage, 1 runtime failure, 128 +
// signal when `trails run` was stopped by SIGINT/SIGTERM/SIGHUP: docs/reliability.md). The
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
#include "trails/core/signals.h"

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
  std::string names;
  for (const auto* sub : app.get_subcommands({})) {
    if (sub->get_name() == argv[1]) return false;
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  fmt::print(stderr, "error: unknown command '{}'; the commands are {} (see trails --help)\n",
             argv[1], names);
  return true;
}

// The word as a POSIX shell reads it back: quoted unless it is plainly safe.
std::string shell_quote(const std::string& word) {
  const bool safe = !word.empty() && word.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-+=./:,@%") == std::string::npos;
  if (safe) return word;
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The command line that continues an interrupted run: this one, with --resume when there is
// committed state to continue.
std::string resume_command(int argc, char** argv, bool resumable) {
  std::string command;
  bool has_resume = false;
  for (int i = 0; i < argc; ++i) {
    const std::string word = argv[i];
    has_resume = has_resume || word == "--resume";
    command += (i == 0 ? "" : " ") + shell_quote(word);
    // `--resume N` already rewound the run: continuing is a plain --resume.
    if (word == "--resume" && i + 1 < argc &&
        std::string(argv[i + 1]).find_first_not_of("0123456789") == std::string::npos) {
      ++i;
    }
  }
  if (resumable && !has_resume) command += " --resume";
  return command;
}

// Runs the parsed subcommand; a core::Error maps to its exit code, anything else to 1.
int run_command(const std::vector<app::Command>& commands, int argc, char** argv) {
  try {
    for (const auto& c : commands) {
      if (*c.sub) return c.run();
    }
  } catch (const core::Interrupted& e) {
    std::fflush(stdout);
    const char* how = e.resumable() ? "resume with" : "start it again with";
    fmt::print(stderr, "trails: {}\n{}: {}\n", e.what(), how,
               resume_command(argc, argv, e.resumable()));
    return e.exit_code();
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
      app::add_run(app, log_level), app::add_check(app),     app::add_init(app),
      app::add_status(app),         app::add_advise(app),    app::add_export(app),
      app::add_plot(app),           app::add_msm(app),       app::add_analyze(app),
      app::add_path(app),           app::add_log(app),       app::add_reweight(app),
      app::add_report(app),         app::add_swarm(app),     app::add_unbind(app),
      app::add_unfold(app),         app::add_fold(app),      app::add_pca(app),
      app::add_worker(app),         app::add_integrate(app), app::add_project(app)};

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
  if (app.got_subcommand("run") || app.got_subcommand("swarm") || app.got_subcommand("unbind") ||
      app.got_subcommand("unfold") || app.got_subcommand("fold"))
    core::install_stop_handlers();  // the others keep the defaults
  return run_command(commands, argc, argv);
}
