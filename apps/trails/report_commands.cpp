// `trails status`, `advise`, `export`, `plot`, `analyze`, `path`, `log`, `reweight` and `report`
// (commands.h): thin wrappers over trails::report (`msm`: msm_command.cpp).
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "commands.h"
#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/report/advise/advise.h"
#include "trails/report/analyze/analyze.h"
#include "trails/report/analyze/reweight.h"
#include "trails/report/export/export.h"
#include "trails/report/export/space_model_export.h"
#include "trails/report/export/trails_md_layout.h"
#include "trails/report/export/trajectory_export.h"
#include "trails/report/html/run_report.h"
#include "trails/report/path/path.h"
#include "trails/report/plot/plot.h"
#include "trails/report/status/rebin_log.h"
#include "trails/report/status/status.h"
#include "value_list.h"

namespace trails::app {
namespace fs = std::filesystem;

namespace {

// Trails-MD's spelling of the run directory, `--run-dir DIR`, beside the positional RUN_DIR
// (docs/trails-md-compatibility.md, "Post-processing flags"); exactly one is needed.
void add_run_dir(CLI::App* sub, fs::path& run_dir) {
  auto* positional = sub->add_option("RUN_DIR", run_dir, "Run directory");
  auto* flag = sub->add_option("--run-dir", run_dir, "Run directory (Trails-MD's spelling)");
  positional->excludes(flag);
  flag->excludes(positional);
  sub->callback([sub, &run_dir] {
    if (run_dir.empty()) {
      throw CLI::RequiredError(sub->get_name() + ": the run directory: RUN_DIR or --run-dir DIR");
    }
  });
}

// A Trails-MD flag with no meaning in Trails: accepted, and said once why it has no effect.
void add_noted_option(CLI::App* sub, const std::string& name, const std::string& why) {
  sub->add_option_function<std::string>(
         name,
         [name, why](const std::string&) {
           fmt::print(stderr, "note: {} has no effect: {}\n", name, why);
         },
         "Trails-MD's; no effect (" + why + ")")
      ->group("Trails-MD flags without effect");
}
void add_noted_flag(CLI::App* sub, const std::string& name, const std::string& why) {
  sub->add_flag_callback(
         name, [name, why] { fmt::print(stderr, "note: {} has no effect: {}\n", name, why); },
         "Trails-MD's; no effect (" + why + ")")
      ->group("Trails-MD flags without effect");
}

const char* const kStoredConfig =
    "Trails reads the run's own configuration from its store (ledger.sqlite), not this file";

// `NAME RUN_DIR [--json]`: compute(RUN_DIR) printed as JSON or through format().
Command add_run_dir_report(CLI::App& app, const char* name, const char* help,
                           nlohmann::json (*compute)(const fs::path&),
                           std::string (*format)(const nlohmann::json&)) {
  struct Options {
    fs::path dir;
    bool as_json = false;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand(name, help);
  sub->add_option("RUN_DIR", o->dir, "Run directory")->required();
  sub->add_flag("--json", o->as_json, "Machine-readable output");
  return {sub, [o, compute, format] {
            const auto j = compute(o->dir);
            std::cout << (o->as_json ? j.dump(2) + "\n" : format(j));
            return 0;
          }};
}

nlohmann::json advice_of(const fs::path& dir) { return report::run_advice(dir); }

}  // namespace

Command add_status(CLI::App& app) {
  return add_run_dir_report(app, "status", "Show the state of a run directory", &report::run_status,
                            &report::format_status);
}

Command add_advise(CLI::App& app) {
  return add_run_dir_report(
      app, "advise",
      "Where a run's time went, and which walker length or packing would speed it up", &advice_of,
      &report::format_advice);
}

namespace {

struct ExportOptions {
  report::ExportRequest request;
  std::optional<fs::path> cvs_out, lineage_out, trajectory_out, model_out, trails_md_layout;
};

int cmd_export(ExportOptions& o) {
  if (o.trails_md_layout) {
    if (o.cvs_out || o.lineage_out || o.trajectory_out || o.model_out ||
        o.request.selection.iteration || o.request.selection.walker) {
      throw core::UsageError(
          "export: --trails-md-layout DIR writes the whole run; give it alone (the other "
          "outputs in a second command)");
    }
    const auto r = report::export_trails_md_layout(o.request.run_dir, *o.trails_md_layout);
    fmt::print(
        "wrote {}: {} iteration(s) as Trails-MD's iter_N/ (cvs.npz, {} frames; {} "
        "iteration_N_W.xtc; {} features.npz) and output.log\n",
        o.trails_md_layout->string(), r.iterations, r.frames, r.trajectories, r.feature_files);
    return 0;
  }
  if (!o.cvs_out && !o.lineage_out && !o.trajectory_out && !o.model_out) {
    throw core::UsageError(
        "export: give --cvs FILE, --lineage FILE, --trajectory FILE, --model FILE.pt and/or "
        "--trails-md-layout DIR");
  }
  if (o.request.cv_names && !o.cvs_out) {
    throw core::UsageError("export: --cv-names names the columns of --cvs FILE; give --cvs");
  }
  // All outputs at once, so that two of them naming one file are refused before anything is
  // written (docs/reliability.md#inputs-and-outputs).
  std::vector<std::pair<std::string, fs::path>> named;
  if (o.cvs_out) named.emplace_back("--cvs", *o.cvs_out);
  if (o.lineage_out) named.emplace_back("--lineage", *o.lineage_out);
  if (o.trajectory_out) {
    named.emplace_back("--trajectory", *o.trajectory_out);
    named.emplace_back("--trajectory (sidecar)", report::trajectory_sidecar(*o.trajectory_out));
  }
  if (o.model_out) {
    named.emplace_back("--model", *o.model_out);
    named.emplace_back("--model (sidecar)", report::model_sidecar(*o.model_out));
  }
  core::check_outputs(named);
  if (o.model_out) {
    const report::SpaceModelRequest m{o.request.run_dir, o.request.selection.iteration, {}};
    const auto it = report::export_space_model(m, *o.model_out);
    fmt::print("wrote {} (the learned space's network at iteration {}) and {}\n",
               o.model_out->string(), it, report::model_sidecar(*o.model_out).string());
  }
  if (o.trajectory_out) {
    const report::TrajectoryExportRequest t{o.request.run_dir, *o.trajectory_out,
                                            o.request.selection};
    const auto n = report::export_trajectory(t);
    fmt::print("wrote {} ({} frames) and {}\n", o.trajectory_out->string(), n,
               report::trajectory_sidecar(*o.trajectory_out).string());
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
  auto& sel = o->request.selection;
  auto* exporter =
      app.add_subcommand("export", "Export CV points, lineage and trajectories of a run");
  exporter->add_option("RUN_DIR", o->request.run_dir, "Run directory")->required();
  exporter->add_option("--cvs", o->cvs_out, "CSV of CV points: iteration,walker,frame,cv_0,...");
  exporter->add_option("--lineage", o->lineage_out, "CSV of frame lineage: key,parent");
  exporter->add_option("--trajectory", o->trajectory_out,
                       "Frames of an OpenMM run as OUT.xtc, OUT.dcd or OUT.pdb (prepared "
                       "topology), with the frame map OUT.json beside it");
  exporter->add_option("--model", o->model_out,
                       "A neural learned space's network as TorchScript FILE.pt, its input "
                       "scaling in FILE.json (the model current at --iteration, default the last)");
  exporter->add_option("--iteration", sel.iteration, "Only the frames of this iteration");
  exporter->add_option("--walker", sel.walker, "Only the frames of this walker");
  exporter->add_option("--trails-md-layout", o->trails_md_layout,
                       "Write the run as Trails-MD lays out its outdir: DIR/iter_N/"
                       "iteration_N_W.xtc, iter_N/cvs.npz, output.log");
  exporter->add_flag("--cv-names", o->request.cv_names,
                     "--cvs header: the run's CV names instead of cv_0, cv_1, ...");
  return {exporter, [o] { return cmd_export(*o); }};
}

Command add_project(CLI::App& app) {
  struct Options {
    report::SpaceModelRequest request;
    fs::path input, out;
    std::optional<std::int64_t> iteration;
    std::optional<fs::path> topology;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand(
      "project", "Project feature rows or a trajectory through a run's stored learned-space model");
  sub->add_option("RUN_DIR", o->request.run_dir, "Run directory of a learned-space campaign")
      ->required();
  sub->add_option("INPUT", o->input,
                  "Feature rows of the run's feature type (FILE.npy, n x features, or a CSV), or "
                  "a trajectory of the run's system (.xtc, .dcd, .trr, .nc, .pdb, .gro), "
                  "projected through the run's own features")
      ->required();
  sub->add_option("--out", o->out, "CSV of the learned CVs, one line per row or frame")->required();
  sub->add_option("--iteration", o->iteration,
                  "Use the model current at this committed iteration (default: the last)");
  sub->add_option("--topology", o->topology,
                  "A trajectory's feature atoms are resolved on this PDB/GRO of the run's system "
                  "(default: the run's prepared topology)");
  return {sub, [o] {
            core::check_outputs({{"--out", o->out}});
            o->request.iteration = o->iteration;
            o->request.topology = o->topology;
            const auto n = report::project_to_csv(o->request, o->input, o->out);
            fmt::print("wrote {} ({} rows)\n", o->out.string(), n);
            return 0;
          }};
}

Command add_plot(CLI::App& app) {
  struct Options {
    fs::path dir;
    std::optional<fs::path> out;
    report::PlotOptions options;
  };
  auto o = std::make_shared<Options>();
  auto* plot = app.add_subcommand(
      "plot", "Draw coverage.png, occupancy.png, fes.png (free energy) and the MSM pictures");
  plot->add_option("RUN_DIR", o->dir, "Run directory")->required();
  plot->add_option("-o,--output", o->out, "Directory for the pictures (default RUN_DIR/plots)");
  plot->add_option("--weights", o->options.weights,
                   "fes.png from these frame weights (a `trails reweight` file of this run)");
  plot->add_option("--temperature", o->options.temperature_k,
                   "Free energies in kJ/mol at this temperature (K); default: the run's "
                   "engine.temperature, or the built-in engine's kT in its reduced units");
  return {plot, [o] {
            for (const auto& p :
                 report::plot_run(o->dir, o->out.value_or(o->dir / "plots"), o->options)) {
              fmt::print("wrote {}\n", p.string());
            }
            return 0;
          }};
}

Command add_analyze(CLI::App& app) {
  auto o = std::make_shared<report::AnalyzeRequest>();
  auto* analyze = app.add_subcommand(
      "analyze", "MSM convergence report of a run: convergence_report.png and a summary");
  add_run_dir(analyze, o->run_dir);
  add_noted_option(analyze, "--config", kStoredConfig);
  analyze->add_option("--outfile", o->outfile,
                      "Report picture (default RUN_DIR/analysis/convergence_report.png)");
  analyze->add_option("--temperature", o->temperature,
                      "Free energies in kJ/mol at this temperature (K); default: the run's "
                      "engine.temperature, or the built-in engine's kT in its reduced units");
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

Command add_reweight(CLI::App& app) {
  auto o = std::make_shared<report::ReweightRequest>();
  auto& opt = o->options;
  auto* reweight = app.add_subcommand(
      "reweight", "RiteWeight frame weights of a run, written beside it (RUN_DIR.weights.csv)");
  reweight->add_option("RUN_DIR", o->run_dir, "Run directory")->required();
  reweight->add_option("-o,--output", o->out,
                       "Weights CSV (default RUN_DIR.weights.csv; never inside RUN_DIR)");
  reweight->add_option("--clusters", opt.n_clusters, "Random cluster centres per iteration (100)");
  reweight->add_option("--iterations", opt.n_iterations, "RiteWeight iterations (5000)");
  reweight->add_option("--average-last", opt.average_last,
                       "Final weights: mean of the last N iterates (1000)");
  reweight->add_option("--learning-rate", opt.learning_rate, "Update exponent, > 0 (1)");
  reweight->add_option("--seed", opt.seed, "Seed of the random clusterings (42)");
  return {reweight, [o] {
            const auto r = report::reweight_run(*o);
            fmt::print(
                "RiteWeight: {} frames, {} segments, {} clusters, {} iterations; drift {:.3g} -> "
                "{:.3g}, {}; wrote {}\n",
                r.frames, r.segments, r.n_clusters, o->options.n_iterations, r.first_drift,
                r.last_drift, r.converged ? "converged" : "NOT converged (drift heuristic)",
                r.written.string());
            return 0;
          }};
}

}  // namespace trails::app

namespace trails::app {

namespace {

struct PathOptions {
  report::PathRequest request;
  std::optional<std::string> start, end;
};

int cmd_path(PathOptions& o) {
  auto& r = o.request;
  const bool single = o.start || o.end;
  if (single == r.pairs_file.has_value()) {
    throw core::UsageError(
        "path: give --start X,.. --end X,.. for one path, or --pairs FILE --output-dir DIR for "
        "a batch");
  }
  if (single) {
    if (!o.start || !o.end) throw core::UsageError("path: --start and --end go together");
    if (r.output_dir) throw core::UsageError("path: --output-dir goes with --pairs");
    r.pairs.push_back({"", parse_real_list("--start", *o.start), parse_real_list("--end", *o.end)});
  } else {
    if (!r.output_dir) throw core::UsageError("path: --pairs needs --output-dir DIR");
    if (r.output || r.metadata) {
      throw core::UsageError(
          "path: -o and --metadata name one path's files; with --pairs the files go to "
          "--output-dir");
    }
    r.pairs = report::read_pairs_file(*r.pairs_file);
  }
  std::cout << report::find_paths(r);
  return 0;
}

}  // namespace

Command add_path(CLI::App& app) {
  auto o = std::make_shared<PathOptions>();
  auto& r = o->request;
  auto* path = app.add_subcommand(
      "path", "Lineage-connected path between the frames nearest two points of CV space");
  add_run_dir(path, r.run_dir);
  add_noted_option(path, "--topology",
                   "the run store keeps the system's topology and writes the path with it");
  add_noted_option(path, "--checkpoint",
                   "every committed iteration is a checkpoint; the path uses all of them");
  add_noted_flag(path, "--ignore-missing-history",
                 "the run store keeps every frame's lineage, so no history is missing");
  path->add_option("--start", o->start, "Start point in CV space: X,Y,... (negative values ok)");
  path->add_option("--end", o->end, "End point in CV space: X,Y,...");
  path->add_option("-o,--output", r.output,
                   "Trajectory of the path (.xtc, .dcd or .pdb; OpenMM runs only)");
  path->add_option("--metadata", r.metadata,
                   "Metadata JSON (default OUTPUT.json with -o, else path.json)");
  path->add_option("--pairs,--pairs-file", r.pairs_file,
                   "Batch: JSON list of {name?, start, end} or CSV (start,end or "
                   "start_0..,end_0.., optional name)");
  path->add_option("--output-dir", r.output_dir, "Batch: directory for the paths' files");
  path->add_option("--format", r.format, "Batch: trajectory format xtc, dcd or pdb (default xtc)");
  path->add_option("--plot", r.plot, "Also draw the path(s) over the CV points into this PNG");
  return {path, [o] { return cmd_path(*o); }};
}

Command add_log(CLI::App& app) {
  struct Options {
    report::RebinRequest request;
    std::optional<std::string> n_bins, min_values, max_values;
  };
  auto o = std::make_shared<Options>();
  auto* log = app.add_subcommand(
      "log", "Re-bin the committed history on another grid: per-iteration coverage table");
  add_run_dir(log, o->request.run_dir);
  add_noted_option(log, "--config", kStoredConfig);
  add_noted_flag(log, "--append",
                 "the table goes to --output or stdout; the run's own output.log is never "
                 "rewritten, so there is nothing to append to");
  log->add_option("--n-bins", o->n_bins, "Bins per CV: N or N1,N2,... (default: the run's)");
  log->add_option("--min-values", o->min_values,
                  "Lower grid edges a,b,... (default: the run's grid, else the data's range)");
  log->add_option("--max-values", o->max_values, "Upper grid edges a,b,...");
  log->add_option("-o,--output", o->request.output,
                  "Write the table to this file (never inside RUN_DIR; default stdout)");
  return {log, [o] {
            auto& r = o->request;
            if (o->n_bins) r.n_bins = parse_int_list("--n-bins", *o->n_bins, 1);
            if (o->min_values) r.min_values = parse_real_list("--min-values", *o->min_values);
            if (o->max_values) r.max_values = parse_real_list("--max-values", *o->max_values);
            const auto table = report::rebin_log(r);
            if (r.output) {
              fmt::print("wrote {} ({} grid)\n", r.output->string(),
                         nlohmann::json(table.n_bins).dump());
            } else {
              std::cout << table.text;
            }
            return 0;
          }};
}

Command add_report(CLI::App& app) {
  auto o = std::make_shared<report::RunReportRequest>();
  auto* cmd = app.add_subcommand(
      "report", "One self-contained HTML page of a run: summary, pictures, MSM, failures");
  cmd->add_option("RUN_DIR", o->run_dir, "Run directory")->required();
  cmd->add_option("-o,--output", o->out_dir, "Directory for index.html (default RUN_DIR/report)");
  cmd->add_option("--temperature", o->temperature_k,
                  "Free energies in kJ/mol at this temperature (K), as trails plot and trails "
                  "analyze take it; default: the run's own unit and temperature");
  cmd->add_option("--tau-ps", o->tau_ps,
                  "Walker segment length in ps, as trails analyze --tau-ps takes it");
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
