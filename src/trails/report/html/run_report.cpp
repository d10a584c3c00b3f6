// `trails report` (run_report.h): checks the target, gathers the page's inputs (status, MSM
// builds, failed walkers, and what `trails plot` and `trails analyze` draw into a scratch
// directory), then writes the one page.
#include "trails/report/html/run_report.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <utility>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/core/temp_dir.h"
#include "trails/report/analyze/free_energy.h"
#include "trails/report/common/run_kind.h"
#include "trails/report/html/html_page.h"
#include "trails/report/html/run_report_sections.h"
#include "trails/report/html/swarm_report.h"
#include "trails/report/plot/plot.h"
#include "trails/report/status/status.h"
#include "trails/store/run_store.h"

namespace trails::report {
namespace fs = std::filesystem;
using json = nlohmann::json;
using detail::DrawnFile;
using detail::ReportInputs;

namespace {

// Every file a command wrote into `dir`, by name (its pictures and any tables), except `skip`.
void collect(const fs::path& dir, const std::string& producer, const fs::path& skip,
             ReportInputs& in) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path() != skip) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    DrawnFile d{producer, f.filename().string(), detail::read_file_bytes(f)};
    (f.extension() == ".png" ? in.pictures : in.tables).push_back(std::move(d));
  }
}

// `trails analyze` with its defaults, its picture and JSON in `dir`. A run it has nothing to
// report on (no MSM model) gets its message instead of a report.
void analyze_into(const fs::path& dir, AnalyzeRequest request, ReportInputs& in) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw core::StoreError("cannot create " + dir.string() + ": " + ec.message());
  request.outfile = dir / "convergence_report.png";
  request.json_out = dir / "analyze.json";
  try {
    in.analysis = analyze_run(request);
    // Without an MSM model analyze draws the histogram free energy (docs/analysis.md): named so
    // that the page captions it as such.
    if (in.analysis->summary.value("builds_with_model", 0) == 0) {
      fs::rename(in.analysis->outfile, dir / "fes_histogram.png", ec);
      if (ec) {
        throw core::StoreError("cannot rename " + in.analysis->outfile.string() + ": " +
                               ec.message());
      }
    }
  } catch (const core::InputError& e) {
    in.analysis_error = e.describe();
  }
  collect(dir, "trails analyze", *request.json_out, in);
}

void read_convergence_file(ReportInputs& in) {
  const fs::path file = in.run_dir / "convergence.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    in.convergence_file_error = "Not written yet: trails run writes it when the campaign stops.";
    return;
  }
  try {
    in.convergence_file = json::parse(detail::read_file_bytes(file));
  } catch (const std::exception& e) {
    in.convergence_file_error = file.string() + " could not be read: " + e.what();
  }
}

void read_store(ReportInputs& in, const store::RunStore& store,
                std::optional<double> temperature_k) {
  in.config = store.meta().config;
  in.energy = energy_scale(store.meta(), temperature_k).words();
  in.builds = checked_msm_builds(store);
  // Only committed iterations (as the status read them): a campaign may be adding more.
  const auto last = in.status.at("last_iteration").get<std::int64_t>();
  for (const auto& s : store.summaries()) {
    if (s.iteration > last || s.failed_walkers == 0) continue;
    for (auto& w : store.walker_placements(s.iteration)) {
      if (!w.ok) in.failures.push_back({s.iteration, std::move(w)});
    }
  }
}

std::string navigation() {
  std::string nav = "<nav>";
  for (const auto& [id, title] :
       std::vector<std::pair<std::string, std::string>>{{"summary", "Summary"},
                                                        {"pictures", "Pictures"},
                                                        {"msm", "MSM builds"},
                                                        {"analysis", "Analysis"},
                                                        {"convergence", "Convergence"},
                                                        {"failures", "Failures"}}) {
    nav += fmt::format("<a href=\"#{}\">{}</a>", id, html::escape(title));
  }
  return nav + "</nav>\n";
}

}  // namespace

RunReportResult write_run_report(const RunReportRequest& request) {
  const fs::path& run_dir = request.run_dir;
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) {
    throw core::InputError("run directory " + run_dir.string() + " does not exist");
  }
  const fs::path out_dir = request.out_dir.value_or(run_dir / "report");
  if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec)) {
    throw core::UsageError("-o " + out_dir.string() +
                           " is not a directory; give the directory for index.html; nothing was "
                           "written");
  }
  const auto target =
      core::check_output("-o", out_dir / "index.html", core::ParentDir::MayBeCreated);
  AnalyzeRequest analysis;
  analysis.run_dir = run_dir;
  analysis.temperature = request.temperature_k;
  analysis.tau_ps = request.tau_ps;
  check_analyze_numbers(analysis);  // before anything is drawn

  ReportInputs in;
  in.run_dir = run_dir;
  in.status = run_status(run_dir);  // InputError when run_dir is not a run
  if (in.status.at("iterations_committed").get<std::int64_t>() == 0) {
    throw core::InputError(run_dir.string() +
                           " has no committed iteration or cycle yet; nothing to report (run it "
                           "first); nothing was written");
  }
  in.generated_at =
      fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                  std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
  std::string body;
  std::vector<std::string> embedded;
  std::string kind = "run";
  if (const auto run = open_run(run_dir); run.kind == RunKind::Swarm) {
    body = swarm_report_body(run_dir, run.store, in.status, in.generated_at, embedded);
    kind = to_string(run.kind);
  } else {
    read_store(in, run.store, request.temperature_k);
    read_convergence_file(in);
    {
      const core::TempDir scratch("trails-report");
      const fs::path plots = scratch.path() / "plots";
      PlotOptions plot_options;
      plot_options.temperature_k = request.temperature_k;
      plot_run(run_dir, plots, plot_options);
      collect(plots, "trails plot", {}, in);
      analyze_into(scratch.path() / "analysis", analysis, in);
    }
    detail::sort_pictures(in.pictures);
    body = navigation() + detail::summary_section(in) + detail::pictures_section(in) +
           detail::msm_section(in) + detail::analysis_section(in) +
           detail::convergence_section(in) + detail::failures_section(in);
    for (const auto& p : in.pictures) embedded.push_back(p.producer + ": " + p.name);
  }
  fs::path name = fs::absolute(run_dir).lexically_normal();
  if (name.filename().empty()) name = name.parent_path();  // "runs/mb/"
  const std::string title = "Trails " + kind + " report: " + name.filename().string();
  const std::string page = html::page(title, body);

  // Everything is gathered; only now is anything written.
  const bool made_dir = !fs::exists(out_dir, ec);
  fs::create_directories(out_dir, ec);
  if (ec) throw core::InputError("cannot create " + out_dir.string() + ": " + ec.message());
  try {
    core::write_output(target, page);
  } catch (...) {
    if (made_dir) fs::remove_all(out_dir, ec);
    throw;
  }
  return {out_dir / "index.html", std::move(embedded), in.analysis_error};
}

}  // namespace trails::report
