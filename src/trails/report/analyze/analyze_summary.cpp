// The two summaries of `trails analyze`: the --json document and the text printed to stdout,
// both made from one ReportData (analyze_report.h).
#include <cmath>

#include <fmt/format.h>

#include "trails/report/analyze/analyze_report.h"

namespace trails::report::detail {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json latest_json(const ReportData& r) {
  const auto& m = r.latest;
  const auto& time = r.time;
  json latest = {{"iteration", r.latest_iteration},
                 {"frames", m.frames},
                 {"lagtime", r.lag},
                 {"lag_ps", time.frame_ps ? json(r.lag * *time.frame_ps) : json(nullptr)},
                 {"n_microstates", m.n_microstates},
                 {"n_active", m.n_active},
                 {"timescales", finite_or_null(r.timescales)},
                 {"timescales_ps", time.frame_ps ? finite_or_null(r.timescales_ps) : json(nullptr)},
                 {"vamp2", m.vamp2 ? json(*m.vamp2) : json(nullptr)},
                 {"converged", m.converged},
                 {"criteria_met", m.criteria_met},
                 {"lag_guard_ok", m.lag_guard_ok},
                 {"streak", m.streak},
                 {"reason", m.reason}};
  json its_j = json::object();
  for (const auto& [l, v] : r.its) its_j[std::to_string(l)] = finite_or_null(v);
  latest["its"] = std::move(its_j);
  return latest;
}

json tail_json(const ReportData& r, double discard_fraction) {
  json tail_ts = json::array();
  json tail_pl = json::array();
  for (const auto& t : r.ts_tail) {
    tail_ts.push_back(finite_or_null(t.mean));
    tail_pl.push_back(finite_or_null(t.plateau));
  }
  const auto& v = r.vamp2_tail;
  return {{"discard_fraction", discard_fraction},
          {"n_skip", v.n_skip},
          {"n_tail", v.n_tail},
          {"first_iteration", v.n_tail ? json(r.iterations[v.n_skip]) : json(nullptr)},
          {"timescales_mean", tail_ts},
          {"timescales_plateau", tail_pl},
          {"vamp2_mean", finite_or_null(v.mean)},
          {"vamp2_plateau", finite_or_null(v.plateau)}};
}

json free_energy_json(const ReportData& r) {
  const auto& fes = r.fes;
  json grid = json::array();
  if (r.fes_dims == 1) {
    grid = finite_or_null(fes.free_energy);
  } else {
    for (int i = 0; i < fes.bins; ++i) {
      grid.push_back(finite_or_null(std::vector<double>(
          fes.free_energy.begin() + i * fes.bins, fes.free_energy.begin() + (i + 1) * fes.bins)));
    }
  }
  return {{"dims", r.fes_dims},
          {"cvs", std::vector<std::string>(r.cv_names.begin(), r.cv_names.begin() + r.fes_dims)},
          {"bins", fes.bins},
          {"edges", fes.edges},
          {"frames", r.points.size() / static_cast<std::size_t>(r.d)},
          {"weighted", !r.weights.empty()},
          {"weighting", r.weighting},
          {"occupied_bins", r.fes_occupied},
          {"min", 0.0},
          {"max", r.fes_max},
          {"unit", r.scale.unit},
          {"F", std::move(grid)}};
}

}  // namespace

json summary_json(const ReportData& r, const AnalyzeRequest& request, const fs::path& outfile) {
  json s;
  s["run_dir"] = fs::absolute(request.run_dir).string();
  s["outfile"] = fs::absolute(outfile).string();
  s["builds"] = r.n_builds;
  s["builds_with_model"] = r.iterations.size();
  s["temperature_k"] = temperature_json(r.scale);
  s["kT"] = r.kT;
  s["energy_unit"] = r.scale.unit;
  s["time"] = {{"unit", r.time.unit()},
               {"frame_ps", r.time.frame_ps ? json(*r.time.frame_ps) : json(nullptr)},
               {"tau_ps", r.time.tau_ps ? json(*r.time.tau_ps) : json(nullptr)},
               {"source", r.time.source}};
  s["latest"] = latest_json(r);
  json series_ts = json::array();
  for (const auto& ts : r.ts_series) series_ts.push_back(finite_or_null(ts));
  s["series"] = {
      {"iterations", r.iterations}, {"vamp2", finite_or_null(r.vamp2)}, {"timescales", series_ts}};
  s["tail"] = tail_json(r, request.discard_fraction);
  s["free_energy"] = free_energy_json(r);
  // PCCA+ of the build, when the campaign recorded one (msm.n_metastable).
  if (r.latest.metastable_populations) {
    s["metastable"] = {{"n_sets", r.metastable_populations.size()},
                       {"populations", finite_or_null(r.metastable_populations)},
                       {"free_energy", finite_or_null(r.metastable_free_energy)}};
  }
  return s;
}

namespace {

std::string latest_lines(const ReportData& r) {
  const auto& m = r.latest;
  const auto& time = r.time;
  std::string text = fmt::format(
      "latest build    iteration {}: lag {} frames{}, {}/{} active states, {} frames\n",
      r.latest_iteration, r.lag,
      time.frame_ps ? fmt::format(" ({} ps)", num(r.lag * *time.frame_ps)) : std::string(),
      m.n_active, m.n_microstates, m.frames);
  std::string line;
  for (std::size_t i = 0; i < r.timescales.size(); ++i) {
    line += fmt::format("{}t{} {} frames", i ? ", " : "", i + 2, num(r.timescales[i]));
    if (time.frame_ps) line += fmt::format(" ({} ps)", num(r.timescales_ps[i]));
  }
  text += "timescales      " + (line.empty() ? std::string("none") : line) + "\n";
  text += fmt::format("VAMP-2          {}\n", m.vamp2 ? num(*m.vamp2) : std::string("n/a"));
  if (m.converged) {
    text += "convergence     converged: " + m.reason + "\n";
  } else {
    text +=
        fmt::format("convergence     not converged (streak {}, criteria met: {}, lag guard {})\n",
                    m.streak, m.criteria_met ? "yes" : "no", m.lag_guard_ok ? "ok" : "failed");
  }
  return text;
}

std::string tail_line(const ReportData& r, double discard_fraction) {
  const auto& v = r.vamp2_tail;
  if (v.n_tail == 0) return "";
  std::string line = fmt::format(
      "tail            {} of {} builds from iteration {} (discard fraction {}):", v.n_tail,
      r.iterations.size(), r.iterations[v.n_skip], discard_fraction);
  if (!r.ts_tail.empty()) {
    line += fmt::format(" t2 mean {} {}", num(r.ts_tail[0].mean * r.time.scale()), r.time.unit());
    if (std::isfinite(r.ts_tail[0].plateau)) {
      line += fmt::format(" (plateau {:.3f})", r.ts_tail[0].plateau);
    }
    line += ",";
  }
  line += fmt::format(" VAMP-2 mean {}", num(v.mean));
  if (std::isfinite(v.plateau)) line += fmt::format(" (plateau {:.3f})", v.plateau);
  return line + "\n";
}

std::string metastable_line(const ReportData& r) {
  const auto& pops = r.metastable_populations;
  if (pops.empty()) return "";
  std::string p;
  std::string fe;
  for (std::size_t i = 0; i < pops.size(); ++i) {
    p += fmt::format("{}{:.4g}", i ? ", " : "", pops[i]);
    // Through JSON as the document holds it: a non-finite F reads back as NaN.
    const double f = number_or_nan(finite_or_null(r.metastable_free_energy[i]));
    fe += fmt::format("{}{}", i ? ", " : "", num(f, "{:.3g}"));
  }
  return fmt::format("metastable      {} PCCA+ sets: populations {} (F {} {})\n", pops.size(), p,
                     fe, r.scale.unit);
}

// How the free-energy surface's frames were weighted, for the summary line.
std::string summary_weighting(const ReportData& r) {
  if (r.weighting_short == "pi-weighted") return "weighted by pi (nearest microstate centre)";
  return std::string("weighted by ") + kEnsembleWeighting;
}

std::string free_energy_and_time_lines(const ReportData& r) {
  const auto& names = r.cv_names;
  std::string text =
      fmt::format("free energy     {} over {}; {}; {}; max {} {}\n",
                  r.fes_dims == 2 ? fmt::format("{0}x{0} bins", r.fes.bins)
                                  : fmt::format("{} bins", r.fes.bins),
                  r.fes_dims == 2 ? names[0] + ", " + names[1] : names[0],
                  r.weights.empty() ? std::string("unweighted") : summary_weighting(r),
                  r.scale.kT_text(), num(r.fes_max, "{:.4g}"), r.scale.unit);
  const auto& time = r.time;
  if (time.source == "--tau-ps") {
    text += fmt::format("time            frame = tau {} ps x stride / step = {} ps (--tau-ps)\n",
                        num(*time.tau_ps), num(*time.frame_ps));
  } else if (time.source == "config") {
    text +=
        fmt::format("time            frame = spawning.stride x engine.dt = {} ps (configuration)\n",
                    num(*time.frame_ps));
  } else if (time.source != "unknown") {
    text +=
        fmt::format("time            in frames ({}: frames differ in length; --tau-ps gives ps)\n",
                    time.source);
  } else {
    text +=
        "time            in frames (built-in engine: dt is in reduced units; --tau-ps gives "
        "ps)\n";
  }
  return text;
}

}  // namespace

std::string summary_text(const ReportData& r, const AnalyzeRequest& request) {
  std::string text = fmt::format("MSM analysis of {} ({} builds with a model, iterations {}..{})\n",
                                 request.run_dir.string(), r.iterations.size(),
                                 r.iterations.front(), r.iterations.back());
  text += latest_lines(r);
  text += tail_line(r, request.discard_fraction);
  text += metastable_line(r);
  text += free_energy_and_time_lines(r);
  return text;
}

}  // namespace trails::report::detail
