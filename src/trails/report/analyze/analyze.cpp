// `trails analyze` (analyze.h): validates the request, gathers the report's numbers from the run
// store (ReportData, analyze_report.h), and only then writes the figure and the JSON.
#include "trails/report/analyze/analyze.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/report/analyze/analyze_report.h"
#include "trails/report/analyze/plot_fes.h"
#include "trails/report/common/cv_axes.h"
#include "trails/report/common/cv_columns.h"
#include "trails/report/common/kinetics.h"
#include "trails/report/common/msm_builds.h"
#include "trails/report/common/potential_from_meta.h"
#include "trails/report/common/run_kind.h"
#include "trails/store/run_store.h"

namespace trails::report {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace detail {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
json finite_or_null(const std::vector<double>& v) {
  json out = json::array();
  for (const double x : v) out.push_back(finite_or_null(x));
  return out;
}
json temperature_json(const EnergyScale& scale) {
  return scale.temperature_k ? json(*scale.temperature_k) : json(nullptr);
}
double number_or_nan(const json& j) { return j.is_number() ? j.get<double>() : kNaN; }
std::string num(double v, const char* fmt_spec) {
  return std::isfinite(v) ? fmt::format(fmt::runtime(fmt_spec), v) : std::string("inf");
}

bool has_model(const msm::MsmBuildRecord& m) { return m.note.empty() && m.n_active >= 2; }

}  // namespace detail

namespace {

using detail::ReportData;

void validate_request(const AnalyzeRequest& request, const fs::path& outfile) {
  check_analyze_numbers(request);
  // The outputs are checked as a whole before anything is read or written
  // (docs/reliability.md#inputs-and-outputs); the picture's directory may be created.
  if (request.json_out) core::check_output("--json", *request.json_out);
  std::vector<std::pair<std::string, fs::path>> named = {{"--outfile", outfile}};
  if (request.json_out) named.emplace_back("--json", *request.json_out);
  core::check_outputs(named, core::ParentDir::MayBeCreated);
  if (!fs::is_directory(request.run_dir)) {
    throw core::InputError("run directory " + request.run_dir.string() + " does not exist");
  }
}

// The latest build with a model (analyze_without_model() has handled runs with none).
const CheckedMsmBuild& latest_model(const std::vector<CheckedMsmBuild>& builds) {
  const CheckedMsmBuild* latest = nullptr;
  for (const auto& b : builds) {
    if (detail::has_model(b.record)) latest = &b;
  }
  TRAILS_CHECK(latest != nullptr, "analyze: a run without an MSM model reached the MSM report");
  return *latest;
}

// Frames: every committed iteration, in ledger order (= `trails export --cvs`), and the weights
// the run's own sampling gives them (a weighted ensemble's; empty otherwise).
void load_points(const store::RunStore& store, const fs::path& run_dir, ReportData& r) {
  const CommittedFrames frames = load_run_frames(store, run_dir);
  if (frames.size() == 0) throw core::InputError(run_dir.string() + " has no frames");
  r.d = frames.d;
  r.points = frames.points;
  r.ensemble_weights = ensemble_frame_weights(store.meta(), frames);
}

// Frame weights from the latest model's pi via nearest microstate centre (else a weighted
// ensemble's walker weights), then the surface.
void free_energy(ReportData& r) {
  const auto& m = r.latest;
  r.weighting = "unweighted (the latest build stores no microstate centres)";
  if (!r.ensemble_weights.empty()) {
    r.weights = r.ensemble_weights;
    r.weighting =
        std::string(kEnsembleWeighting) + "; the latest build stores no microstate centres";
    r.weighting_short = "WE-weighted";
  }
  if (m.cluster_centers) {
    const auto& centres = *m.cluster_centers;
    const auto k = static_cast<std::size_t>(m.n_microstates);
    if (k > 0 && centres.size() == k * static_cast<std::size_t>(r.d)) {
      r.weights = analysis::microstate_frame_weights(r.points, r.d, centres, m.active_set,
                                                     m.stationary_distribution);
      r.weighting_short = "pi-weighted";
      r.weighting = fmt::format(
          "frames weighted by pi of the build at iteration {} (pi_i / frames nearest to "
          "microstate centre i)",
          r.latest_iteration);
    }
  }
  r.fes_dims = std::min(r.d, 2);
  r.fes = analysis::free_energy_surface(r.points, r.d, r.fes_dims, r.weights,
                                        analysis::kFreeEnergyBins, r.kT);
  for (const double f : r.fes.free_energy) {
    if (std::isfinite(f)) {
      r.fes_max = std::max(r.fes_max, f);
      ++r.fes_occupied;
    }
  }
}

// Frames, +inf for an infinite one (null in the payload, NaN in the record).
std::vector<double> timescales_of(const msm::MsmBuildRecord& build) {
  std::vector<double> ts;
  ts.reserve(build.timescales.size());
  for (const double t : build.timescales) ts.push_back(std::isnan(t) ? detail::kInf : t);
  return ts;
}

// Series over builds with a model, and their tails.
void build_series(const std::vector<CheckedMsmBuild>& builds, double discard_fraction,
                  ReportData& r) {
  for (const auto& b : builds) {
    if (!detail::has_model(b.record)) continue;
    r.iterations.push_back(b.iteration);
    r.vamp2.push_back(b.record.vamp2.value_or(detail::kNaN));
    r.ts_series.push_back(timescales_of(b.record));
    r.ts_errors.push_back(b.record.timescale_errors.value_or(std::vector<double>{}));
    r.width = std::max(r.width, r.ts_series.back().size());
  }
  for (auto& ts : r.ts_series) ts.resize(r.width, detail::kNaN);
  r.vamp2_tail = analysis::series_tail(r.vamp2, discard_fraction);
  for (std::size_t j = 0; j < r.width; ++j) {
    std::vector<double> col;
    col.reserve(r.ts_series.size());
    for (const auto& ts : r.ts_series) col.push_back(ts[j]);
    r.ts_tail.push_back(analysis::series_tail(col, discard_fraction));
  }
}

// The latest build's timescales, its implied-timescale ladder and its PCCA+ sets.
void latest_numbers(ReportData& r) {
  const auto& m = r.latest;
  r.timescales = timescales_of(m);
  for (const double t : r.timescales) r.timescales_ps.push_back(t * r.time.scale());
  r.its.assign(m.its.begin(), m.its.end());  // lags ascending, NaN where null
  r.lag = m.lagtime;
  if (m.metastable_populations) {
    r.metastable_populations = *m.metastable_populations;  // NaN where null
    auto& fm = r.metastable_free_energy;
    double lo = detail::kInf;
    for (const double p : r.metastable_populations) {
      fm.push_back(p > 0 ? -r.kT * std::log(p) : detail::kNaN);
    }
    for (const double f : fm) {
      if (std::isfinite(f)) lo = std::min(lo, f);
    }
    for (double& f : fm) f -= lo;
  }
}

ReportData gather(const AnalyzeRequest& request, const store::RunStore& store) {
  const auto builds = checked_msm_builds(store);
  const auto& latest = latest_model(builds);
  ReportData r;
  r.n_builds = builds.size();
  r.latest_iteration = latest.iteration;
  r.latest = latest.record;
  const auto& config = store.meta().config;
  r.time = run_time_axis(store, request.tau_ps);
  r.scale = energy_scale(store.meta(), request.temperature);
  r.kT = r.scale.kT;
  load_points(store, request.run_dir, r);
  free_energy(r);
  build_series(builds, request.discard_fraction, r);
  latest_numbers(r);
  r.cv_names = recorded_cv_names(store.meta(), r.d);
  for (int i = 0; i < r.d; ++i)
    r.cv_labels.push_back(cv_axis_label(config, store.meta().engine_system, i, r.d));
  return r;
}

// A run without an MSM model: the histogram free energy of its frames (free_energy.h) is the
// report, written to --outfile or RUN_DIR/analysis/fes.png; nullopt when a build has a model.
std::optional<AnalyzeResult> analyze_without_model(const AnalyzeRequest& request,
                                                   const std::optional<json>& mfpt,
                                                   const store::RunStore& store) {
  const auto builds = checked_msm_builds(store);
  if (std::any_of(builds.begin(), builds.end(),
                  [](const auto& b) { return detail::has_model(b.record); })) {
    return std::nullopt;
  }
  const fs::path outfile = request.outfile.value_or(request.run_dir / "analysis" / "fes.png");
  std::vector<std::pair<std::string, fs::path>> named = {{"--outfile", outfile}};
  if (request.json_out) named.emplace_back("--json", *request.json_out);
  const auto targets = core::check_outputs(named, core::ParentDir::MayBeCreated);
  const auto potential = potential_from_meta(store.meta());
  auto pictures = run_free_energy_pictures(store, request.run_dir, std::nullopt,
                                           request.temperature, potential.get());
  const auto& picture = pictures.front().picture;
  const std::string why = builds.empty() ? "no MSM builds (msm.enabled: true gives the MSM report)"
                                         : fmt::format("its {} MSM build(s) have no model ({})",
                                                       builds.size(), builds.back().record.note);
  const fs::path out_dir = fs::absolute(outfile).parent_path();
  const bool made_dir = !fs::exists(out_dir);
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw core::InputError("cannot create " + out_dir.string() + ": " + ec.message());
  analysis::FreeEnergySurface fes;
  try {
    write_free_energy_png(picture, targets[0], &fes);
  } catch (...) {
    if (made_dir) fs::remove_all(out_dir, ec);
    throw;
  }
  std::size_t occupied = 0;
  for (const double f : fes.free_energy) occupied += std::isfinite(f) ? 1 : 0;
  json grid = json::array();  // 2-D: F[i][j] (cv_0 bin i), as the MSM report's
  if (fes.dims == 1) grid = detail::finite_or_null(fes.free_energy);
  for (int i = 0; fes.dims == 2 && i < fes.bins; ++i) {
    grid.push_back(detail::finite_or_null(std::vector<double>(
        fes.free_energy.begin() + i * fes.bins, fes.free_energy.begin() + (i + 1) * fes.bins)));
  }
  AnalyzeResult result;
  result.outfile = outfile;
  result.summary = {
      {"run_dir", request.run_dir.string()},
      {"outfile", outfile.string()},
      {"builds", builds.size()},
      {"builds_with_model", 0},
      {"temperature_k", detail::temperature_json(picture.scale)},
      {"kT", picture.scale.kT},
      {"energy_unit", picture.scale.unit},
      {"free_energy",
       {{"dims", fes.dims},
        {"bins", fes.bins},
        {"edges", fes.edges},
        {"frames", picture.points.size() / static_cast<std::size_t>(picture.point_dim)},
        {"weighted", !picture.weights.empty()},
        {"weighting", picture.source},
        {"occupied_bins", occupied},
        {"unit", picture.scale.unit},
        {"F", std::move(grid)}}}};
  result.text = fmt::format(
      "run             {}\nno MSM model    {}: the report is the histogram free energy\n"
      "free energy     {} of {}; {} of {} bins occupied; {}\nwrote {}\n",
      request.run_dir.string(), why, picture.source,
      fes.dims == 2 ? picture.axes[0].label() + ", " + picture.axes[1].label()
                    : picture.axes[0].label(),
      occupied, fes.free_energy.size(), picture.scale.kT_text(), outfile.string());
  if (mfpt) {
    result.summary["mfpt"] = *mfpt;
    result.text += mfpt_text(*mfpt);
  }
  if (request.json_out) {
    core::write_output(targets[1], result.summary.dump(2) + "\n");
    result.text += "wrote " + request.json_out->string() + "\n";
  }
  return result;
}

}  // namespace

void check_analyze_numbers(const AnalyzeRequest& request) {
  if (request.temperature && !(std::isfinite(*request.temperature) && *request.temperature > 0)) {
    throw core::UsageError(
        fmt::format("--temperature {} K must be positive", *request.temperature));
  }
  if (request.tau_ps && !(std::isfinite(*request.tau_ps) && *request.tau_ps > 0)) {
    throw core::UsageError(
        fmt::format("--tau-ps {} must be a positive segment length in ps", *request.tau_ps));
  }
  if (!(request.discard_fraction >= 0.0 && request.discard_fraction < 1.0)) {
    throw core::UsageError(
        fmt::format("--discard-fraction {} is outside [0, 1)", request.discard_fraction));
  }
}

AnalyzeResult analyze_run(const AnalyzeRequest& request) {
  const fs::path outfile =
      request.outfile.value_or(request.run_dir / "analysis" / "convergence_report.png");
  validate_request(request, outfile);
  // The MFPT block of a weighted-ensemble run with recycling (docs/kinetics.md).
  const auto run = open_campaign_run(request.run_dir, "trails analyze");
  std::optional<json> mfpt;
  if (const auto k = kinetics_series(run.store, request.tau_ps)) {
    mfpt = mfpt_json(*k, request.discard_fraction);
  }
  if (auto fes_only = analyze_without_model(request, mfpt, run.store)) return std::move(*fes_only);
  const ReportData r = gather(request, run.store);
  json s = detail::summary_json(r, request, outfile);
  std::string text = detail::summary_text(r, request);
  if (mfpt) {
    s["mfpt"] = *mfpt;
    text += mfpt_text(*mfpt);
  }
  detail::ReportFigure figure;

  // Everything is validated and computed; only now is anything written.
  const fs::path out_dir = fs::absolute(outfile).parent_path();
  const bool made_dir = !fs::exists(out_dir);
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw core::InputError("cannot create " + out_dir.string() + ": " + ec.message());
  try {
    core::write_output(core::check_output("--outfile", outfile), figure.draw(r, request));
  } catch (...) {
    if (made_dir) fs::remove_all(out_dir, ec);
    throw;
  }
  text += "wrote " + outfile.string() + "\n";
  if (request.json_out) {
    core::write_output(core::check_output("--json", *request.json_out), s.dump(2) + "\n");
    text += "wrote " + request.json_out->string() + "\n";
  }
  return {std::move(s), std::move(text), outfile};
}

}  // namespace trails::report
