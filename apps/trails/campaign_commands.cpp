// `trails run`, `trails check` and `trails init` (commands.h).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "commands.h"
#include "console_progress.h"
#include "trails/campaign/campaign.h"
#include "trails/campaign/preflight.h"
#include "trails/config/load.h"
#include "trails/config/template.h"
#include "trails/core/error.h"
#include "trails/core/output_target.h"

namespace trails::app {
namespace fs = std::filesystem;

namespace {

int cmd_run(const fs::path& config_file, std::optional<std::int64_t> iterations, bool resume) {
  const auto config = config::load_campaign_config(config_file);
  campaign::RunOptions options;
  options.resume = resume;
  options.target_iterations = iterations.value_or(config.iterations.value_or(1));
  ConsoleProgress progress(stdout);
  const auto outcome = campaign::run_campaign(config, options, progress);
  fmt::print("Output: {}\n", config.outdir.string());
  (void)outcome;
  return 0;
}

int cmd_check(const fs::path& config_file, bool resume) {
  const auto config = config::load_campaign_config(config_file);
  campaign::preflight(config, resume);
  campaign::check_engine_and_cvs(config);
  fmt::print("Preflight checks passed. Output directory: {}\n", config.outdir.string());
  return 0;
}

int cmd_init(const fs::path& output, bool force) {
  // Refuses store files, devices and the like even with --force
  // (docs/reliability.md#inputs-and-outputs).
  const auto target = core::check_output("init --output", output);
  if (fs::exists(target.path) && !force) {
    throw core::UsageError(output.string() + " already exists; use --force to overwrite it");
  }
  core::write_output(target, config::campaign_template());
  fmt::print("Wrote {}. Next: trails check {} && trails run {}\n", output.string(), output.string(),
             output.string());
  return 0;
}

}  // namespace

Command add_run(CLI::App& app, std::string& log_level) {
  struct Options {
    fs::path config;
    std::optional<std::int64_t> iterations;
    bool resume = false;
  };
  auto o = std::make_shared<Options>();
  auto* run = app.add_subcommand("run", "Run (or continue) an adaptive campaign");
  run->add_option("CONFIG", o->config, "Campaign configuration (YAML)")->required();
  run->add_option("--iterations", o->iterations, "Total iteration target of the campaign")
      ->check(CLI::NonNegativeNumber);
  run->add_flag("--resume", o->resume, "Continue the campaign from its last committed iteration");
  run->add_option("--log-level", log_level, "trace|debug|info|warning|error|off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warning", "error", "off"}));
  return {run, [o] { return cmd_run(o->config, o->iterations, o->resume); }};
}

Command add_check(CLI::App& app) {
  struct Options {
    fs::path config;
    bool resume = false;
  };
  auto o = std::make_shared<Options>();
  auto* check = app.add_subcommand(
      "check", "Validate a configuration and run preflight checks; writes nothing");
  check->add_option("CONFIG", o->config, "Campaign configuration (YAML)")->required();
  check->add_flag("--resume", o->resume, "Check as for `trails run --resume`");
  return {check, [o] { return cmd_check(o->config, o->resume); }};
}

Command add_init(CLI::App& app) {
  struct Options {
    fs::path output = "config.yaml";
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  auto* init = app.add_subcommand("init", "Write an annotated template configuration");
  init->add_option("-o,--output", o->output, "File to write");
  init->add_flag("--force", o->force, "Overwrite an existing file");
  return {init, [o] { return cmd_init(o->output, o->force); }};
}

}  // namespace trails::app
