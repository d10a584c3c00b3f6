// `trails status`, `export`, `plot`, `msm`, `analyze` and `report` (commands.h): thin wrappers over
// trails::report.
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "commands.h"
#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/report/analyze.h"
#include "trails/report/export.h"
#include "trails/report/msm_tool.h"
#include "trails/report/plot.h"
#include "trails/report/run_report.h"
#include "trails/report/status.h"
#include "trails/report/trajectory_export.h"

namespace trails::app {
namespace fs = std::filesystem;

Command add_status(CLI::App& app) {
  struct Options {
    fs::path dir;
    bool as_json = false;
  };
  auto o = std::make_shared<Options>();
  auto* status = app.add_subcommand("status", "Show the state of a run directory");
  status->add_option("RUN_DIR", o->dir, "Run directory")->required();
  status->add_flag("--json", o->as_json, "Machine-readable output");
  return {status, [o] {
            const auto s = report::run_status(o->dir);
            std::cout << (o->as_json ? s.dump(2) + "\n" : report::format_status(s));
            return 0;
          }};
}

namespace {

struct ExportOptions {
  report::ExportRequest request;
  std::optional<fs::path> cvs_out, lineage_out, trajectory_out;
  std::optional<std::int64_t> iteration, walker;
};

int cmd_export(ExportOptions& o) {
  if (!o.cvs_out && !o.lineage_out && !o.trajectory_out) {
    throw core::UsageError("export: give --cvs FILE, --lineage FILE and/or --trajectory FILE");
  }
  if ((o.iteration || o.walker) && !o.trajectory_out) {
    throw core::UsageError("export: --iteration and --walker select frames for --trajectory");
  }
  // All outputs at once, so that two of them naming one file are refused before anything is
  // written (docs/reliability.md#inputs-and-outputs).
  std::vector<std::pair<std::string, fs::path>> named;
  if (o.cvs_out) named.emplace_back("--cvs", *o.cvs_out);
  if (o.lineage_out) named.emplace_back("--lineage", *o.lineage_out);
  if (o.trajectory_out) named.emplace_back("--trajectory", *o.trajectory_out);
  core::check_outputs(named);
  if (o.trajectory_out) {
    report::TrajectoryExportRequest t{o.request.run_dir, *o.trajectory_out, o.iteration, o.walker};
    const auto n = report::export_trajectory(t);
    fmt::print("wrote {} ({} frames)\n", o.trajectory_out->string(), n);
  }
  if (o.cvs_out || o.lineage_out) {
    o.request.cvs_csv = o.cvs_out;
    o.request.lineage_csv = o.lineage_out;
    report::export_run(o.request);
  }
  return 0;
}

}  // namespace

Command add_export(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  auto* exporter = app.add_subcommand("export", "Export CV points and lineage as CSV");
  exporter->add_option("RUN_DIR", o->request.run_dir, "Run directory")->required();
  exporter->add_option("--cvs", o->cvs_out, "CSV of CV points: iteration,walker,frame,cv_0,...");
  exporter->add_option("--lineage", o->lineage_out, "CSV of frame lineage: key,parent");
  exporter->add_option(
      "--trajectory", o->trajectory_out,
      "Frames of an OpenMM run as OUT.xtc, OUT.dcd or OUT.pdb (prepared topology)");
  exporter->add_option("--iteration", o->iteration, "With --trajectory: only this iteration");
  exporter->add_option("--walker", o->walker, "With --trajectory: only this walker");
  return {exporter, [o] { return cmd_export(*o); }};
}

Command add_plot(CLI::App& app) {
  struct Options {
    fs::path dir;
    std::optional<fs::path> out;
  };
  auto o = std::make_shared<Options>();
  auto* plot = app.add_subcommand("plot", "Draw coverage.png and occupancy.png");
  plot->add_option("RUN_DIR", o->dir, "Run directory")->required();
  plot->add_option("-o,--output", o->out, "Directory for the pictures (default RUN_DIR/plots)");
  return {plot, [o] {
            for (const auto& p : report::plot_run(o->dir, o->out.value_or(o->dir / "plots"))) {
              fmt::print("wrote {}\n", p.string());
            }
            return 0;
          }};
}

namespace {

struct MsmOptions {
  report::MsmRequest request;
  std::string its;
  std::optional<fs::path> json;
  std::optional<fs::path> run;
  bool nonreversible = false;
  std::optional<int> pcca;
};

std::vector<int> parse_lags(const std::string& text) {
  std::vector<int> lags;
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    int v = 0;
    const auto r = std::from_chars(item.data(), item.data() + item.size(), v);
    if (r.ec != std::errc() || r.ptr != item.data() + item.size() || v < 1) {
      throw core::UsageError("--its: '" + item + "' is not a lag >= 1 (give L1,L2,...)");
    }
    lags.push_back(v);
  }
  return lags;
}

// The one-line summary printed when the model goes to a file.
std::string msm_summary(const nlohmann::json& j, const fs::path& written) {
  std::string ts;
  for (const auto& t : j["timescales"]) {
    ts +=
        (ts.empty() ? "" : ", ") + (t.is_number() ? fmt::format("{:.6g}", t.get<double>()) : "inf");
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
  return fmt::format("MSM lag {}: {}/{} states active, timescales [{}] frames{}; wrote {}\n",
                     j["lag"].get<int>(), j["active_set"].size(), j["n_states"].get<int>(), ts,
                     meta, written.string());
}

int cmd_msm(MsmOptions& o) {
  o.request.pcca = o.pcca;
  o.request.run_dir = o.run;
  o.request.reversible = !o.nonreversible;
  for (const int lag : parse_lags(o.its)) o.request.its_lags.push_back(lag);
  std::optional<core::OutputTarget> target;
  if (o.json) target = core::check_output("--json", *o.json);
  const auto j = report::msm_report(o.request);
  if (!target) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  core::write_output(*target, j.dump(2) + "\n");
  fmt::print("{}", msm_summary(j, *o.json));
  return 0;
}

}  // namespace

Command add_msm(CLI::App& app) {
  auto o = std::make_shared<MsmOptions>();
  auto& r = o->request;
  auto* msm = app.add_subcommand(
      "msm", "Estimate a Markov state model of discrete trajectories or of a run's CVs");
  msm->add_option(
      "DTRAJ", r.dtrajs,
      "Discrete trajectories: .npy integer arrays or text (one state per line), one file each");
  msm->add_option("--run", o->run,
                  "Cluster this run directory's CVs (k-means) instead of reading DTRAJ files");
  msm->add_option("--clusters", r.clusters, "With --run: k-means microstates (default 100)");
  msm->add_option("--seed", r.seed, "With --run: k-means++ seed (default 42)");
  msm->add_option("--lag", r.lag, "Lag time in frames")->required();
  msm->add_flag("--nonreversible", o->nonreversible,
                "Non-reversible MLE (default: reversible MLE)");
  msm->add_option("--its", o->its, "Implied-timescale lags, comma-separated (L1,L2,...)");
  msm->add_option("--timescales", r.n_timescales, "Timescales reported per lag (default 5)");
  msm->add_option("--pcca", o->pcca,
                  "PCCA+: K metastable sets of the reversible model (JSON key pcca)");
  msm->add_option("--json", o->json, "Write the model as JSON to this file (default: stdout)");
  return {msm, [o] { return cmd_msm(*o); }};
}

Command add_analyze(CLI::App& app) {
  auto o = std::make_shared<report::AnalyzeRequest>();
  auto* analyze = app.add_subcommand(
      "analyze", "MSM convergence report of a run: convergence_report.png and a summary");
  analyze->add_option("RUN_DIR", o->run_dir, "Run directory")->required();
  analyze->add_option("--outfile", o->outfile,
                      "Report picture (default RUN_DIR/analysis/convergence_report.png)");
  analyze->add_option("--temperature", o->temperature,
                      "Temperature (K) of F = -kT ln p in kJ/mol (default 300)");
  analyze->add_option("--tau-ps", o->tau_ps,
                      "Walker segment length in ps (spawning.step x engine.dt, as Trails-MD's "
                      "--tau-ps); frame interval = tau x stride / step");
  analyze->add_option("--discard-fraction", o->discard_fraction,
                      "Leading fraction of the MSM builds dropped before the tail means, in [0, 1) "
                      "(default 0.5)");
  analyze->add_option("--json", o->json_out, "Also write the numbers as JSON to this file");
  return {analyze, [o] {
            const auto result = report::analyze_run(*o);
            std::cout << result.text;
            return 0;
          }};
}

Command add_report(CLI::App& app) {
  auto o = std::make_shared<report::RunReportRequest>();
  auto* cmd = app.add_subcommand(
      "report", "One self-contained HTML page of a run: summary, pictures, MSM, failures");
  cmd->add_option("RUN_DIR", o->run_dir, "Run directory")->required();
  cmd->add_option("-o,--output", o->out_dir, "Directory for index.html (default RUN_DIR/report)");
  return {cmd, [o] {
            const auto result = report::write_run_report(*o);
            if (!result.analysis_note.empty()) {
              fmt::print("trails analyze made no report: {}\n", result.analysis_note);
            }
            fmt::print("wrote {} ({} pictures)\n", result.index.string(), result.pictures.size());
            return 0;
          }};
}

}  // namespace trails::app
