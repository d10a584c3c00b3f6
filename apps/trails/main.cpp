// The `trails` command: parses arguments, loads the configuration, calls one driver, and maps
// errors to exit codes (0 success, 2 bad configuration/input/usage, 1 runtime failure).
#include <charconv>
#include <cstdio>
#include <sstream>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "console_progress.h"
#include "trails/campaign/campaign.h"
#include "trails/campaign/preflight.h"
#include "trails/config/load.h"
#include "trails/config/template.h"
#include "trails/core/error.h"
#include "trails/engines/registry.h"
#include "trails/report/analyze.h"
#include "trails/report/export.h"
#include "trails/report/msm_tool.h"
#include "trails/report/trajectory_export.h"
#include "trails/report/plot.h"
#include "trails/report/status.h"

namespace fs = std::filesystem;
using namespace trails;

namespace {

void set_log_level(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("trails");
  logger->set_pattern("[%l] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level == "warning" ? "warn" : level));
}

int cmd_run(const fs::path& config_file, std::optional<std::int64_t> iterations, bool resume) {
  const auto config = config::load_campaign_config(config_file);
  campaign::RunOptions options;
  options.resume = resume;
  options.target_iterations = iterations.value_or(config.iterations.value_or(1));
  app::ConsoleProgress progress(stdout);
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
  if (fs::exists(output) && !force) {
    throw core::UsageError(output.string() + " already exists; use --force to overwrite it");
  }
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  const auto text = config::campaign_template();
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) throw core::InputError("cannot write " + output.string());
  fmt::print("Wrote {}. Next: trails check {} && trails run {}\n", output.string(),
             output.string(), output.string());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Trails: adaptive molecular-dynamics sampling"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("trails ") + TRAILS_VERSION);
  std::string log_level = "warning";

  auto* run = app.add_subcommand("run", "Run (or continue) an adaptive campaign");
  fs::path run_config;
  std::optional<std::int64_t> iterations;
  bool resume = false;
  run->add_option("CONFIG", run_config, "Campaign configuration (YAML)")->required();
  run->add_option("--iterations", iterations, "Total iteration target of the campaign")
      ->check(CLI::NonNegativeNumber);
  run->add_flag("--resume", resume, "Continue the campaign from its last committed iteration");
  run->add_option("--log-level", log_level, "trace|debug|info|warning|error|off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warning", "error", "off"}));

  auto* check = app.add_subcommand("check", "Validate a configuration and run preflight checks; writes nothing");
  fs::path check_config;
  bool check_resume = false;
  check->add_option("CONFIG", check_config, "Campaign configuration (YAML)")->required();
  check->add_flag("--resume", check_resume, "Check as for `trails run --resume`");

  auto* init = app.add_subcommand("init", "Write an annotated template configuration");
  fs::path init_output = "config.yaml";
  bool force = false;
  init->add_option("-o,--output", init_output, "File to write");
  init->add_flag("--force", force, "Overwrite an existing file");

  auto* status = app.add_subcommand("status", "Show the state of a run directory");
  fs::path status_dir;
  bool as_json = false;
  status->add_option("RUN_DIR", status_dir, "Run directory")->required();
  status->add_flag("--json", as_json, "Machine-readable output");

  auto* exporter = app.add_subcommand("export", "Export CV points and lineage as CSV");
  report::ExportRequest export_request;
  std::optional<fs::path> cvs_out, lineage_out;
  exporter->add_option("RUN_DIR", export_request.run_dir, "Run directory")->required();
  exporter->add_option("--cvs", cvs_out, "CSV of CV points: iteration,walker,frame,cv_0,...");
  exporter->add_option("--lineage", lineage_out, "CSV of frame lineage: key,parent");
  std::optional<fs::path> trajectory_out;
  std::optional<std::int64_t> export_iteration, export_walker;
  exporter->add_option("--trajectory", trajectory_out,
                       "Frames of an OpenMM run as OUT.xtc, OUT.dcd or OUT.pdb (prepared topology)");
  exporter->add_option("--iteration", export_iteration, "With --trajectory: only this iteration");
  exporter->add_option("--walker", export_walker, "With --trajectory: only this walker");

  auto* plot = app.add_subcommand("plot", "Draw coverage.png and occupancy.png");
  fs::path plot_dir;
  std::optional<fs::path> plot_out;
  plot->add_option("RUN_DIR", plot_dir, "Run directory")->required();
  plot->add_option("-o,--output", plot_out, "Directory for the pictures (default RUN_DIR/plots)");

  auto* msm = app.add_subcommand("msm", "Estimate a Markov state model of discrete trajectories or of a run's CVs");
  report::MsmRequest msm_request;
  std::string msm_its;
  std::optional<fs::path> msm_json;
  std::optional<fs::path> msm_run;
  bool nonreversible = false;
  std::optional<int> pcca;
  msm->add_option("DTRAJ", msm_request.dtrajs, "Discrete trajectories: .npy integer arrays or text (one state per line), one file each");
  msm->add_option("--run", msm_run, "Cluster this run directory's CVs (k-means) instead of reading DTRAJ files");
  msm->add_option("--clusters", msm_request.clusters, "With --run: k-means microstates (default 100)");
  msm->add_option("--seed", msm_request.seed, "With --run: k-means++ seed (default 42)");
  msm->add_option("--lag", msm_request.lag, "Lag time in frames")->required();
  msm->add_flag("--nonreversible", nonreversible, "Non-reversible MLE (default: reversible MLE)");
  msm->add_option("--its", msm_its, "Implied-timescale lags, comma-separated (L1,L2,...)");
  msm->add_option("--timescales", msm_request.n_timescales, "Timescales reported per lag (default 5)");
  msm->add_option("--pcca", pcca, "PCCA+: K metastable sets of the reversible model (JSON key pcca)");
  msm->add_option("--json", msm_json, "Write the model as JSON to this file (default: stdout)");

  auto* analyze = app.add_subcommand(
      "analyze", "MSM convergence report of a run: convergence_report.png and a summary");
  report::AnalyzeRequest analyze_request;
  analyze->add_option("RUN_DIR", analyze_request.run_dir, "Run directory")->required();
  analyze->add_option("--outfile", analyze_request.outfile,
                      "Report picture (default RUN_DIR/analysis/convergence_report.png)");
  analyze->add_option("--temperature", analyze_request.temperature,
                      "Temperature (K) of F = -kT ln p in kJ/mol (default 300)");
  analyze->add_option("--tau-ps", analyze_request.tau_ps,
                      "Walker segment length in ps (spawning.step x engine.dt, as Trails-MD's "
                      "--tau-ps); frame interval = tau x stride / step");
  analyze->add_option("--discard-fraction", analyze_request.discard_fraction,
                      "Leading fraction of the MSM builds dropped before the tail means, in [0, 1) "
                      "(default 0.5)");
  analyze->add_option("--json", analyze_request.json_out, "Also write the numbers as JSON to this file");

  const auto known = [&](const std::string& name) {
    for (const auto* sub : app.get_subcommands({})) {
      if (sub->get_name() == name) return true;
    }
    return false;
  };
  if (argc > 1 && argv[1][0] != '-' && !known(argv[1])) {
    fmt::print(stderr, "error: unknown command '{}'; the commands are run, check, init, status, "
               "export, plot, msm and analyze (see trails --help)\n", argv[1]);
    return 2;
  }
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
  try {
    if (*run) return cmd_run(run_config, iterations, resume);
    if (*check) return cmd_check(check_config, check_resume);
    if (*init) return cmd_init(init_output, force);
    if (*status) {
      const auto s = report::run_status(status_dir);
      std::cout << (as_json ? s.dump(2) + "\n" : report::format_status(s));
      return 0;
    }
    if (*exporter) {
      if (!cvs_out && !lineage_out && !trajectory_out) {
        throw core::UsageError("export: give --cvs FILE, --lineage FILE and/or --trajectory FILE");
      }
      if ((export_iteration || export_walker) && !trajectory_out) {
        throw core::UsageError("export: --iteration and --walker select frames for --trajectory");
      }
      if (trajectory_out) {
        report::TrajectoryExportRequest t{export_request.run_dir, *trajectory_out,
                                          export_iteration, export_walker};
        const auto n = report::export_trajectory(t);
        fmt::print("wrote {} ({} frames)\n", trajectory_out->string(), n);
      }
      if (cvs_out || lineage_out) {
        export_request.cvs_csv = cvs_out;
        export_request.lineage_csv = lineage_out;
        report::export_run(export_request);
      }
      return 0;
    }
    if (*msm) {
      msm_request.pcca = pcca;
      msm_request.run_dir = msm_run;
      msm_request.reversible = !nonreversible;
      std::stringstream lags(msm_its);
      for (std::string item; std::getline(lags, item, ',');) {
        int v = 0;
        const auto r = std::from_chars(item.data(), item.data() + item.size(), v);
        if (r.ec != std::errc() || r.ptr != item.data() + item.size() || v < 1) {
          throw core::UsageError("--its: '" + item + "' is not a lag >= 1 (give L1,L2,...)");
        }
        msm_request.its_lags.push_back(v);
      }
      const auto j = report::msm_report(msm_request);
      if (msm_json) {
        std::ofstream out(*msm_json, std::ios::binary | std::ios::trunc);
        out << j.dump(2) << "\n";
        if (!out) throw core::InputError("cannot write " + msm_json->string());
        std::string ts;
        for (const auto& t : j["timescales"]) {
          ts += (ts.empty() ? "" : ", ") + (t.is_number() ? fmt::format("{:.6g}", t.get<double>()) : "inf");
        }
        std::string meta;
        if (j.contains("pcca")) {
          std::string pops;
          for (const auto& p : j["pcca"]["populations"]) {
            pops += (pops.empty() ? "" : ", ") + fmt::format("{:.4g}", p.get<double>());
          }
          meta = fmt::format("; {} PCCA+ sets, metastable populations [{}]",
                             j["pcca"]["n_sets"].get<int>(), pops);
        }
        fmt::print("MSM lag {}: {}/{} states active, timescales [{}] frames{}; wrote {}\n",
                   j["lag"].get<int>(), j["active_set"].size(), j["n_states"].get<int>(), ts, meta,
                   msm_json->string());
      } else {
        std::cout << j.dump(2) << "\n";
      }
      return 0;
    }
    if (*analyze) {
      const auto result = report::analyze_run(analyze_request);
      std::cout << result.text;
      return 0;
    }
    if (*plot) {
      for (const auto& p : report::plot_run(plot_dir, plot_out.value_or(plot_dir / "plots"))) {
        fmt::print("wrote {}\n", p.string());
      }
      return 0;
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
