#include "trails/report/analyze.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/report/gnuplot.h"
#include "trails/core/fs.h"
#include "trails/store/run_store.h"
#include "trails/report/msm_builds.h"

namespace trails::report {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kPlottedTimescales = 3;  // Trails-MD's plot_timescale_convergence draws t2..t4

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
json finite_or_null(const std::vector<double>& v) {
  json out = json::array();
  for (const double x : v) out.push_back(finite_or_null(x));
  return out;
}
double number_or_nan(const json& j) { return j.is_number() ? j.get<double>() : kNaN; }
std::string num(double v, const char* fmt_spec = "{:.6g}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(fmt_spec), v) : std::string("inf");
}
std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "trails-analyze-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw core::StoreError("cannot create a temporary directory");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// One gnuplot process for the whole report; its messages go to a log, not to our stdout.
void run_gnuplot(const std::string& script, const fs::path& log) {
  report::run_gnuplot(script, "the analysis report", &log);
}

bool has_model(const json& m) {
  return m.value("note", "").empty() && m.contains("transition_matrix") &&
         m.at("transition_matrix").is_array() && m.value("n_active", 0) >= 2 &&
         m.contains("stationary_distribution") && m.at("stationary_distribution").is_array();
}

// Picoseconds per frame, or nullopt when the run's time unit is unknown (built-in engine).
struct TimeAxis {
  std::optional<double> frame_ps;
  std::optional<double> tau_ps;  // walker segment (step × dt)
  std::string source;            // "--tau-ps", "config", "unknown"
  std::string unit() const { return frame_ps ? "ps" : "frames"; }
  double scale() const { return frame_ps.value_or(1.0); }
};

// physical_time: the engine integrates in ps (RunMeta::engine_system), so engine.dt gives frames a
// physical length.
TimeAxis time_axis(const json& config, bool physical_time, const std::optional<double>& tau_ps) {
  const auto& spawning = config.value("spawning", json::object());
  const auto& engine = config.value("engine", json::object());
  const double step = spawning.value("step", 0.0);
  const double stride = spawning.value("stride", 0.0);
  TimeAxis t;
  if (tau_ps) {
    if (step <= 0 || stride <= 0) {
      throw core::InputError("--tau-ps: the run's configuration has no spawning.step/stride to "
                             "turn a segment length into a frame interval");
    }
    t.tau_ps = *tau_ps;
    t.frame_ps = *tau_ps * stride / step;
    t.source = "--tau-ps";
  } else if (physical_time && engine.contains("dt") &&
             engine.at("dt").is_number() && stride > 0) {
    const double dt = engine.at("dt").get<double>();
    t.frame_ps = stride * dt;
    t.tau_ps = step * dt;
    t.source = "config";
  } else {
    t.source = "unknown";
  }
  return t;
}

std::vector<std::string> cv_names(const json& config, int d) {
  std::vector<std::string> names;
  const auto& cvs = config.value("cvs", json());
  for (int i = 0; i < d; ++i) {
    std::string n = fmt::format("cv_{}", i);
    if (cvs.is_array() && static_cast<int>(cvs.size()) == d && cvs[i].is_object()) {
      n = cvs[i].value("name", n);
    }
    names.push_back(n);
  }
  return names;
}

// gnuplot single-quoted strings: a quote is written twice.
std::string gp_text(std::string s) {
  std::string out;
  for (const char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out;
}

}  // namespace

// ---- numerics ----

std::vector<double> microstate_frame_weights(std::span<const double> points, int point_dim,
                                             std::span<const double> centres,
                                             std::span<const int> active_set,
                                             std::span<const double> pi) {
  if (point_dim < 1 || points.size() % static_cast<std::size_t>(point_dim) != 0 ||
      centres.size() % static_cast<std::size_t>(point_dim) != 0 || centres.empty()) {
    throw core::InputError(fmt::format("microstate weights: {} point values and {} centre values "
                                       "do not fit dimension {}", points.size(), centres.size(), point_dim));
  }
  if (active_set.size() != pi.size()) {
    throw core::InputError(fmt::format("microstate weights: {} active states but {} stationary "
                                       "probabilities", active_set.size(), pi.size()));
  }
  const std::size_t d = static_cast<std::size_t>(point_dim);
  const std::size_t n = points.size() / d;
  const std::size_t k = centres.size() / d;
  std::vector<double> state_pi(k, 0.0);
  for (std::size_t a = 0; a < active_set.size(); ++a) {
    const int s = active_set[a];
    if (s < 0 || static_cast<std::size_t>(s) >= k) {
      throw core::InputError(fmt::format("microstate weights: active state {} outside 0..{}", s, k - 1));
    }
    state_pi[static_cast<std::size_t>(s)] = pi[a];
  }
  std::vector<std::size_t> label(n);
  std::vector<std::size_t> count(k, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t best = 0;
    double best_d2 = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < k; ++c) {
      double d2 = 0.0;
      for (std::size_t j = 0; j < d; ++j) {
        const double diff = points[i * d + j] - centres[c * d + j];
        d2 += diff * diff;
      }
      if (d2 < best_d2) {  // strict: ties go to the lowest index
        best_d2 = d2;
        best = c;
      }
    }
    label[i] = best;
    ++count[best];
  }
  std::vector<double> w(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = state_pi[label[i]] / static_cast<double>(count[label[i]]);
  return w;
}

FreeEnergySurface free_energy_surface(std::span<const double> points, int point_dim, int dims,
                                      std::span<const double> weights, int bins, double kT) {
  if (dims < 1 || dims > 2 || point_dim < dims || bins < 1 || !(kT > 0)) {
    throw core::InputError(fmt::format("free energy surface: dims {} of a {}-D space, {} bins, kT {}",
                                       dims, point_dim, bins, kT));
  }
  const std::size_t d = static_cast<std::size_t>(point_dim);
  if (points.size() % d != 0 || points.empty()) {
    throw core::InputError(fmt::format("free energy surface: {} values are not frames of dimension {}",
                                       points.size(), point_dim));
  }
  const std::size_t n = points.size() / d;
  if (!weights.empty() && weights.size() != n) {
    throw core::InputError(fmt::format("free energy surface: {} weights for {} frames", weights.size(), n));
  }
  FreeEnergySurface fes;
  fes.dims = dims;
  fes.bins = bins;
  for (int a = 0; a < dims; ++a) {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (std::size_t i = 0; i < n; ++i) {
      const double x = points[i * d + static_cast<std::size_t>(a)];
      if (!std::isfinite(x)) throw core::InputError("free energy surface: a CV value is not finite");
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    if (lo == hi) {  // numpy's _get_outer_edges
      lo -= 0.5;
      hi += 0.5;
    }
    // numpy.linspace: k * step + start, the last edge exactly stop.
    const double step = (hi - lo) / bins;
    std::vector<double> e(static_cast<std::size_t>(bins) + 1);
    for (int k = 0; k < bins; ++k) e[static_cast<std::size_t>(k)] = static_cast<double>(k) * step + lo;
    e.back() = hi;
    fes.edges.push_back(std::move(e));
  }
  const std::size_t cells = static_cast<std::size_t>(dims == 1 ? bins : bins * bins);
  std::vector<double> hist(cells, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t cell = 0;
    for (int a = 0; a < dims; ++a) {
      const auto& e = fes.edges[static_cast<std::size_t>(a)];
      const double x = points[i * d + static_cast<std::size_t>(a)];
      auto b = static_cast<std::size_t>(std::upper_bound(e.begin(), e.end(), x) - e.begin()) - 1;
      if (x == e.back()) b = static_cast<std::size_t>(bins) - 1;
      cell = cell * static_cast<std::size_t>(bins) + b;
    }
    const double w = weights.empty() ? 1.0 : weights[i];
    hist[cell] += w;
    fes.total_weight += w;
  }
  if (!(fes.total_weight > 0)) throw core::InputError("free energy surface: the frames carry no weight");
  // Density p = hist / (total × cell area); the constant cancels in the shift to a 0 minimum.
  double area = 1.0;
  for (const auto& e : fes.edges) area *= (e.back() - e.front()) / bins;
  fes.free_energy.assign(cells, kNaN);
  double fmin = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < cells; ++c) {
    if (hist[c] > 0) {
      fes.free_energy[c] = -kT * std::log(hist[c] / (fes.total_weight * area));
      fmin = std::min(fmin, fes.free_energy[c]);
    }
  }
  for (double& f : fes.free_energy) {
    if (std::isfinite(f)) f -= fmin;
  }
  return fes;
}

SeriesTail series_tail(std::span<const double> values, double discard_fraction) {
  if (!(discard_fraction >= 0.0 && discard_fraction < 1.0)) {
    throw core::UsageError(fmt::format("--discard-fraction {} is outside [0, 1)", discard_fraction));
  }
  SeriesTail t;
  t.n_skip = static_cast<std::size_t>(std::floor(static_cast<double>(values.size()) * discard_fraction));
  t.n_tail = values.size() - t.n_skip;
  const auto mean = [](std::span<const double> v) {
    double s = 0.0;
    std::size_t m = 0;
    for (const double x : v) {
      if (std::isfinite(x)) {
        s += x;
        ++m;
      }
    }
    return m ? s / static_cast<double>(m) : kNaN;
  };
  const auto tail = values.subspan(t.n_skip);
  t.mean = mean(tail);
  t.plateau = kNaN;
  if (tail.size() >= 2) {
    const std::size_t h = tail.size() / 2;
    const double first = mean(tail.first(h));
    const double second = mean(tail.subspan(h));
    if (std::isfinite(first) && first != 0.0 && std::isfinite(second)) t.plateau = second / first;
  }
  return t;
}

// ---- the report ----

AnalyzeResult analyze_run(const AnalyzeRequest& request) {
  if (!(std::isfinite(request.temperature) && request.temperature > 0)) {
    throw core::UsageError(fmt::format("--temperature {} K must be positive", request.temperature));
  }
  if (request.tau_ps && !(std::isfinite(*request.tau_ps) && *request.tau_ps > 0)) {
    throw core::UsageError(fmt::format("--tau-ps {} must be a positive segment length in ps", *request.tau_ps));
  }
  if (!(request.discard_fraction >= 0.0 && request.discard_fraction < 1.0)) {
    throw core::UsageError(fmt::format("--discard-fraction {} is outside [0, 1)", request.discard_fraction));
  }
  const fs::path outfile = request.outfile.value_or(request.run_dir / "analysis" / "convergence_report.png");
  if (fs::is_directory(outfile)) {
    throw core::UsageError("--outfile " + outfile.string() + " is a directory; give the PNG's file name");
  }
  if (request.json_out) {
    if (fs::is_directory(*request.json_out)) {
      throw core::UsageError("--json " + request.json_out->string() + " is a directory; give a file name");
    }
    const auto parent = fs::absolute(*request.json_out).parent_path();
    if (!fs::is_directory(parent)) {
      throw core::UsageError("--json: directory " + parent.string() + " does not exist");
    }
  }

  if (!fs::is_directory(request.run_dir)) {
    throw core::InputError("run directory " + request.run_dir.string() + " does not exist");
  }
  const auto store = store::RunStore::open(request.run_dir, store::RunStore::Mode::ReadOnly);
  const auto builds = checked_msm_builds(store);
  // Trails-MD also reports a weighted-ensemble MFPT from the recycled-flux series; Trails does
  // not record one, so a run without MSM builds has nothing to analyze.
  if (builds.empty()) {
    throw core::InputError(fmt::format(
        "nothing to analyze in {}: no MSM builds (set msm.enabled: true in the configuration and "
        "run the campaign) and no weighted-ensemble flux series (Trails records none yet); "
        "nothing was written", request.run_dir.string()));
  }
  const store::MsmBuildRow* latest = nullptr;
  for (const auto& b : builds) {
    if (has_model(b.model)) latest = &b;
  }
  if (latest == nullptr) {
    throw core::InputError(fmt::format(
        "nothing to analyze in {}: its {} MSM build(s) have no model ({}); nothing was written",
        request.run_dir.string(), builds.size(), builds.back().model.value("note", "no transition matrix")));
  }
  const auto& m = latest->model;
  const auto& config = store.meta().config;
  const TimeAxis time =
      time_axis(config, store.meta().engine_system.value("time_unit", "") == "ps", request.tau_ps);
  const double kT = kBoltzmannKjPerMolK * request.temperature;

  // Frames: every committed iteration, in ledger order (= `trails export --cvs`).
  const auto records = store.load_iterations();
  int d = 0;
  std::vector<double> points;
  for (const auto& r : records) {
    if (r.n_frames() == 0) continue;
    if (d == 0) d = r.cv_dim;
    if (r.cv_dim != d) {
      throw core::InputError(fmt::format("{}: iteration {} has {} CVs, earlier iterations {}; the free "
                                         "energy surface needs one CV space", request.run_dir.string(),
                                         r.iteration, r.cv_dim, d));
    }
    points.insert(points.end(), r.cvs.begin(), r.cvs.end());
  }
  if (points.empty()) throw core::InputError(request.run_dir.string() + " has no frames");

  // Frame weights from the latest model's pi via nearest microstate centre.
  std::vector<double> weights;
  std::string weighting = "unweighted (the latest build stores no microstate centres)";
  const auto active = m.at("active_set").get<std::vector<int>>();
  const auto pi = m.at("stationary_distribution").get<std::vector<double>>();
  if (m.contains("cluster_centers") && m.at("cluster_centers").is_array()) {
    const auto centres = m.at("cluster_centers").get<std::vector<double>>();
    const auto k = static_cast<std::size_t>(m.value("n_microstates", 0));
    if (k > 0 && centres.size() == k * static_cast<std::size_t>(d)) {
      weights = microstate_frame_weights(points, d, centres, active, pi);
      weighting = fmt::format("frames weighted by pi of the build at iteration {} (pi_i / frames "
                              "nearest to microstate centre i)", latest->iteration);
    }
  }
  const int fes_dims = std::min(d, 2);
  const auto fes = free_energy_surface(points, d, fes_dims, weights, kFreeEnergyBins, kT);
  double fmax = 0.0;
  std::size_t occupied = 0;
  for (const double f : fes.free_energy) {
    if (std::isfinite(f)) {
      fmax = std::max(fmax, f);
      ++occupied;
    }
  }

  // Series over builds with a model.
  std::vector<std::int64_t> iterations;
  std::vector<double> vamp2;
  std::vector<std::vector<double>> ts_series;  // per build
  std::size_t width = 0;
  for (const auto& b : builds) {
    if (!has_model(b.model)) continue;
    iterations.push_back(b.iteration);
    vamp2.push_back(number_or_nan(b.model.value("vamp2", json())));
    std::vector<double> ts;
    for (const auto& t : b.model.value("timescales", json::array())) {
      ts.push_back(t.is_number() ? t.get<double>() : std::numeric_limits<double>::infinity());
    }
    width = std::max(width, ts.size());
    ts_series.push_back(std::move(ts));
  }
  for (auto& ts : ts_series) ts.resize(width, kNaN);
  const auto vamp2_tail = series_tail(vamp2, request.discard_fraction);
  std::vector<SeriesTail> ts_tail;
  for (std::size_t j = 0; j < width; ++j) {
    std::vector<double> col;
    for (const auto& ts : ts_series) col.push_back(ts[j]);
    ts_tail.push_back(series_tail(col, request.discard_fraction));
  }

  std::vector<double> timescales;  // latest, frames (+inf for an infinite one)
  for (const auto& t : m.at("timescales")) {
    timescales.push_back(t.is_number() ? t.get<double>() : std::numeric_limits<double>::infinity());
  }
  std::vector<std::pair<int, std::vector<double>>> its;
  if (m.contains("its") && m.at("its").is_object()) {
    for (const auto& [lag, row] : m.at("its").items()) {
      std::vector<double> v;
      for (const auto& t : row) v.push_back(number_or_nan(t));
      its.emplace_back(std::stoi(lag), std::move(v));
    }
    std::sort(its.begin(), its.end());
  }
  const int lag = m.at("lagtime").get<int>();

  // ---- JSON ----
  json s;
  s["run_dir"] = fs::absolute(request.run_dir).string();
  s["outfile"] = fs::absolute(outfile).string();
  s["builds"] = builds.size();
  s["builds_with_model"] = iterations.size();
  s["temperature_k"] = request.temperature;
  s["kT_kj_mol"] = kT;
  s["time"] = {{"unit", time.unit()},
               {"frame_ps", time.frame_ps ? json(*time.frame_ps) : json(nullptr)},
               {"tau_ps", time.tau_ps ? json(*time.tau_ps) : json(nullptr)},
               {"source", time.source}};
  std::vector<double> ts_ps;
  for (const double t : timescales) ts_ps.push_back(t * time.scale());
  s["latest"] = {{"iteration", latest->iteration},
                 {"frames", m.value("frames", 0)},
                 {"lagtime", lag},
                 {"lag_ps", time.frame_ps ? json(lag * *time.frame_ps) : json(nullptr)},
                 {"n_microstates", m.value("n_microstates", 0)},
                 {"n_active", m.value("n_active", 0)},
                 {"timescales", finite_or_null(timescales)},
                 {"timescales_ps", time.frame_ps ? finite_or_null(ts_ps) : json(nullptr)},
                 {"vamp2", m.value("vamp2", json())},
                 {"converged", m.value("converged", false)},
                 {"criteria_met", m.value("criteria_met", false)},
                 {"lag_guard_ok", m.value("lag_guard_ok", true)},
                 {"streak", m.value("streak", 0)},
                 {"reason", m.value("reason", "")}};
  {
    json its_j = json::object();
    for (const auto& [l, v] : its) its_j[std::to_string(l)] = finite_or_null(v);
    s["latest"]["its"] = std::move(its_j);
  }
  json series_ts = json::array();
  for (const auto& ts : ts_series) series_ts.push_back(finite_or_null(ts));
  s["series"] = {{"iterations", iterations}, {"vamp2", finite_or_null(vamp2)}, {"timescales", series_ts}};
  json tail_ts = json::array();
  json tail_pl = json::array();
  for (const auto& t : ts_tail) {
    tail_ts.push_back(finite_or_null(t.mean));
    tail_pl.push_back(finite_or_null(t.plateau));
  }
  s["tail"] = {{"discard_fraction", request.discard_fraction},
               {"n_skip", vamp2_tail.n_skip},
               {"n_tail", vamp2_tail.n_tail},
               {"first_iteration", vamp2_tail.n_tail ? json(iterations[vamp2_tail.n_skip]) : json(nullptr)},
               {"timescales_mean", tail_ts},
               {"timescales_plateau", tail_pl},
               {"vamp2_mean", finite_or_null(vamp2_tail.mean)},
               {"vamp2_plateau", finite_or_null(vamp2_tail.plateau)}};
  const auto names = cv_names(config, d);
  {
    json grid = json::array();
    if (fes_dims == 1) {
      grid = finite_or_null(fes.free_energy);
    } else {
      for (int i = 0; i < fes.bins; ++i) {
        grid.push_back(finite_or_null(std::vector<double>(
            fes.free_energy.begin() + i * fes.bins, fes.free_energy.begin() + (i + 1) * fes.bins)));
      }
    }
    s["free_energy"] = {{"dims", fes_dims},
                        {"cvs", std::vector<std::string>(names.begin(), names.begin() + fes_dims)},
                        {"bins", fes.bins},
                        {"edges", fes.edges},
                        {"frames", points.size() / static_cast<std::size_t>(d)},
                        {"weighted", !weights.empty()},
                        {"weighting", weighting},
                        {"occupied_bins", occupied},
                        {"min", 0.0},
                        {"max", fmax},
                        {"unit", "kJ/mol"},
                        {"F", std::move(grid)}};
  }
  // PCCA+ of the build, when the campaign recorded one (msm.n_metastable).
  std::vector<double> meta_pops;
  if (m.contains("metastable_populations") && m.at("metastable_populations").is_array()) {
    for (const auto& p : m.at("metastable_populations")) meta_pops.push_back(number_or_nan(p));
    std::vector<double> fm;
    double lo = std::numeric_limits<double>::infinity();
    for (const double p : meta_pops) fm.push_back(p > 0 ? -kT * std::log(p) : kNaN);
    for (const double f : fm) {
      if (std::isfinite(f)) lo = std::min(lo, f);
    }
    for (double& f : fm) f -= lo;
    s["metastable"] = {{"n_sets", meta_pops.size()},
                       {"populations", finite_or_null(meta_pops)},
                       {"free_energy", finite_or_null(fm)}};
  }

  // ---- text ----
  const std::string u = time.unit();
  std::string text = fmt::format("MSM analysis of {} ({} builds with a model, iterations {}..{})\n",
                                 request.run_dir.string(), iterations.size(), iterations.front(),
                                 iterations.back());
  text += fmt::format("latest build    iteration {}: lag {} frames{}, {}/{} active states, {} frames\n",
                      latest->iteration, lag,
                      time.frame_ps ? fmt::format(" ({} ps)", num(lag * *time.frame_ps)) : std::string(),
                      m.value("n_active", 0), m.value("n_microstates", 0), m.value("frames", 0));
  {
    std::string line;
    for (std::size_t i = 0; i < timescales.size(); ++i) {
      line += fmt::format("{}t{} {} frames", i ? ", " : "", i + 2, num(timescales[i]));
      if (time.frame_ps) line += fmt::format(" ({} ps)", num(ts_ps[i]));
    }
    text += "timescales      " + (line.empty() ? std::string("none") : line) + "\n";
  }
  text += fmt::format("VAMP-2          {}\n", m.value("vamp2", json()).is_number()
                                                 ? num(m.at("vamp2").get<double>())
                                                 : std::string("n/a"));
  if (m.value("converged", false)) {
    text += "convergence     converged: " + m.value("reason", "") + "\n";
  } else {
    text += fmt::format("convergence     not converged (streak {}, criteria met: {}, lag guard {})\n",
                        m.value("streak", 0), m.value("criteria_met", false) ? "yes" : "no",
                        m.value("lag_guard_ok", true) ? "ok" : "failed");
  }
  if (vamp2_tail.n_tail > 0) {
    std::string line = fmt::format("tail            {} of {} builds from iteration {} (discard fraction {}):",
                                   vamp2_tail.n_tail, iterations.size(), iterations[vamp2_tail.n_skip],
                                   request.discard_fraction);
    if (!ts_tail.empty()) {
      line += fmt::format(" t2 mean {} {}", num(ts_tail[0].mean * time.scale()), u);
      if (std::isfinite(ts_tail[0].plateau)) line += fmt::format(" (plateau {:.3f})", ts_tail[0].plateau);
      line += ",";
    }
    line += fmt::format(" VAMP-2 mean {}", num(vamp2_tail.mean));
    if (std::isfinite(vamp2_tail.plateau)) line += fmt::format(" (plateau {:.3f})", vamp2_tail.plateau);
    text += line + "\n";
  }
  if (!meta_pops.empty()) {
    std::string pops;
    std::string fe;
    for (std::size_t i = 0; i < meta_pops.size(); ++i) {
      pops += fmt::format("{}{:.4g}", i ? ", " : "", meta_pops[i]);
      const double f = number_or_nan(s["metastable"]["free_energy"][i]);
      fe += fmt::format("{}{}", i ? ", " : "", num(f, "{:.3g}"));
    }
    text += fmt::format("metastable      {} PCCA+ sets: populations {} (F {} kJ/mol)\n", meta_pops.size(), pops, fe);
  }
  text += fmt::format("free energy     {} over {}; {}; kT {:.4g} kJ/mol at {} K; max {} kJ/mol\n",
                      fes_dims == 2 ? fmt::format("{0}x{0} bins", fes.bins) : fmt::format("{} bins", fes.bins),
                      fes_dims == 2 ? names[0] + ", " + names[1] : names[0],
                      weights.empty() ? "unweighted" : "weighted by pi (nearest microstate centre)", kT,
                      request.temperature, num(fmax, "{:.4g}"));
  if (time.source == "--tau-ps") {
    text += fmt::format("time            frame = tau {} ps x stride / step = {} ps (--tau-ps)\n",
                        num(*time.tau_ps), num(*time.frame_ps));
  } else if (time.source == "config") {
    text += fmt::format("time            frame = spawning.stride x engine.dt = {} ps (configuration)\n",
                        num(*time.frame_ps));
  } else {
    text += "time            in frames (built-in engine: dt is in reduced units; --tau-ps gives ps)\n";
  }

  // ---- the figure: one gnuplot call, 2x2 multiplot ----
  TempDir tmp;
  const double sc = time.scale();
  double ylo = std::numeric_limits<double>::infinity();
  double yhi = 0.0;
  {
    std::ofstream out(tmp.path / "its.dat");
    for (const auto& [l, v] : its) {
      out << l * sc;
      for (const double t : v) {
        out << ' ' << (std::isfinite(t) ? fmt::format("{}", t * sc) : "NaN");
        if (std::isfinite(t) && t > 0) {
          ylo = std::min(ylo, t * sc);
          yhi = std::max(yhi, t * sc);
        }
      }
      out << '\n';
      ylo = std::min(ylo, l * sc);
      yhi = std::max(yhi, l * sc);
    }
  }
  {
    std::ofstream out(tmp.path / "builds.dat");
    for (std::size_t b = 0; b < iterations.size(); ++b) {
      out << iterations[b] << ' ' << (std::isfinite(vamp2[b]) ? fmt::format("{}", vamp2[b]) : "NaN");
      for (std::size_t j = 0; j < width; ++j) {
        const double t = ts_series[b][j];
        out << ' ' << (std::isfinite(t) ? fmt::format("{}", t * sc) : "NaN");
      }
      out << '\n';
    }
  }
  {
    std::ofstream out(tmp.path / "fes.dat");
    const auto& ex = fes.edges[0];
    for (int i = 0; i < fes.bins; ++i) {
      const double x = 0.5 * (ex[static_cast<std::size_t>(i)] + ex[static_cast<std::size_t>(i) + 1]);
      if (fes_dims == 1) {
        const double f = fes.free_energy[static_cast<std::size_t>(i)];
        out << x << ' ' << (std::isfinite(f) ? fmt::format("{}", f) : "NaN") << '\n';
        continue;
      }
      const auto& ey = fes.edges[1];
      for (int j = 0; j < fes.bins; ++j) {
        const double y = 0.5 * (ey[static_cast<std::size_t>(j)] + ey[static_cast<std::size_t>(j) + 1]);
        const double f = fes.free_energy[static_cast<std::size_t>(i * fes.bins + j)];
        out << x << ' ' << y << ' ' << (std::isfinite(f) ? fmt::format("{}", f) : "NaN") << '\n';
      }
      out << '\n';
    }
  }
  // Shading of the builds dropped by --discard-fraction, between the last dropped and first kept.
  std::string transient;
  if (vamp2_tail.n_skip > 0 && vamp2_tail.n_tail > 0) {
    const double cut = 0.5 * static_cast<double>(iterations[vamp2_tail.n_skip - 1] + iterations[vamp2_tail.n_skip]);
    transient = fmt::format("set object 1 rect from graph 0, graph 0 to first {}, graph 1 behind "
                            "fc rgb '#e6e6e6' fs solid 1.0 noborder\n", cut);
  }
  const std::string font = "set terminal pngcairo size 1650,1350 enhanced font 'Sans,12'\n";
  const fs::path tmp_png = tmp.path / "report.png";
  std::string g = font + "set output " + q(tmp_png) + "\n";
  g += fmt::format("set multiplot layout 2,2 title '{}' font 'Sans,14'\n",
                   gp_text(fmt::format("MSM convergence report: {} ({} builds, latest at iteration {})",
                                       request.run_dir.filename().string().empty() ? request.run_dir.string()
                                                                                   : request.run_dir.filename().string(),
                                       iterations.size(), latest->iteration)));
  // (a) implied timescales vs lag
  g += "set title '(a) Implied timescales (latest build)'\n";
  g += fmt::format("set xlabel 'lag time ({})'\nset ylabel 'implied timescale ({})'\n", u, u);
  g += "set logscale y\nset grid\nset key top left opaque\n";
  if (!its.empty() && std::isfinite(ylo) && yhi > 0) {
    g += fmt::format("set yrange [{}:{}]\n", ylo / 2, yhi * 2);
    std::string plot = fmt::format("plot {} using 1:({}):1 with filledcurves lc rgb '#dddddd' title 'lag time'",
                                   q(tmp.path / "its.dat"), ylo / 2);
    const std::size_t ncol = its.front().second.size();
    for (std::size_t i = 0; i < ncol; ++i) {
      plot += fmt::format(", '' using 1:{} with linespoints lt {} pt 7 lw 2 title 't_{}'", i + 2, i + 1, i + 2);
    }
    plot += ", '' using 1:1 with lines dt 2 lw 1.5 lc rgb '#555555' notitle\n";
    g += plot;
  } else {
    g += "unset logscale y\nset label 1 'no implied-timescale ladder (msm.lagtimes)' at graph 0.5, graph 0.5 center\n";
    g += "plot [0:1][0:1] NaN notitle\nunset label 1\n";
  }
  // (b) timescale convergence
  g += "reset\n" + transient;
  g += "set title '(b) Timescale convergence'\n";
  g += fmt::format("set xlabel 'iteration'\nset ylabel 'implied timescale ({})'\n", u);
  g += "set logscale y\nset grid\nset key top left opaque\n";
  const std::size_t nplot = std::min<std::size_t>(width, kPlottedTimescales);
  if (nplot > 0) {
    std::string plot = "plot ";
    for (std::size_t j = 0; j < nplot; ++j) {
      plot += fmt::format("{}{} using 1:{} with linespoints lt {} pt 7 ps 0.8 lw 2 title 't_{}'",
                          j ? ", " : "", j ? "''" : q(tmp.path / "builds.dat"), j + 3, j + 1, j + 2);
    }
    for (std::size_t j = 0; j < nplot; ++j) {
      if (std::isfinite(ts_tail[j].mean) && ts_tail[j].mean > 0) {
        plot += fmt::format(", {} with lines lt {} dt 2 notitle", ts_tail[j].mean * sc, j + 1);
      }
    }
    g += plot + "\n";
  } else {
    g += "unset logscale y\nplot [0:1][0:1] NaN notitle\n";
  }
  // (c) VAMP-2 convergence
  g += "reset\n" + transient;
  g += "set title '(c) VAMP-2 convergence'\nset xlabel 'iteration'\nset ylabel 'VAMP-2 score'\nset grid\nset key top left opaque\n";
  g += "plot " + q(tmp.path / "builds.dat") +
       " using 1:2 with linespoints pt 7 ps 0.8 lw 2 lc rgb '#c0392b' title 'VAMP-2'";
  if (std::isfinite(vamp2_tail.mean)) {
    g += fmt::format(", {} with lines dt 2 lc rgb '#c0392b' title 'tail mean'", vamp2_tail.mean);
  }
  g += "\n";
  // (d) free-energy surface
  g += "reset\n";
  const std::string fes_title = fmt::format("(d) Free energy{} ({} K)", weights.empty() ? "" : ", pi-weighted",
                                            request.temperature);
  g += "set title '" + gp_text(fes_title) + "'\n";
  if (fes_dims == 2) {
    g += fmt::format("set xlabel '{}' noenhanced\nset ylabel '{}' noenhanced\nset cblabel 'free energy (kJ/mol)'\n",
                     gp_text(names[0]), gp_text(names[1]));
    g += fmt::format("set xrange [{}:{}]\nset yrange [{}:{}]\nset cbrange [0:*]\n", fes.edges[0].front(),
                     fes.edges[0].back(), fes.edges[1].front(), fes.edges[1].back());
    g += "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21908d', 0.75 '#5dc963', 1 '#fde725')\n";
    g += "set key off\nplot " + q(tmp.path / "fes.dat") + " using 1:2:3 with image\n";
  } else {
    g += fmt::format("set xlabel '{}' noenhanced\nset ylabel 'free energy (kJ/mol)'\nset grid\nset key off\n",
                     gp_text(names[0]));
    g += "plot " + q(tmp.path / "fes.dat") + " using 1:2 with linespoints pt 7 ps 0.6 lw 2 lc rgb '#21908d'\n";
  }
  g += "unset multiplot\nset output\n";

  // Everything is validated and computed; only now is anything written.
  const fs::path out_dir = fs::absolute(outfile).parent_path();
  const bool made_dir = !fs::exists(out_dir);
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw core::InputError("cannot create " + out_dir.string() + ": " + ec.message());
  try {
    run_gnuplot(g, tmp.path / "gnuplot.log");
    if (!fs::exists(tmp_png) || fs::file_size(tmp_png) == 0) {
      throw core::InputError("gnuplot wrote no picture for the analysis report");
    }
    std::ifstream in(tmp_png, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    core::write_file_atomic(outfile, bytes.str());
  } catch (...) {
    if (made_dir) fs::remove_all(out_dir, ec);
    throw;
  }
  text += "wrote " + outfile.string() + "\n";
  if (request.json_out) {
    core::write_file_atomic(*request.json_out, s.dump(2) + "\n");
    text += "wrote " + request.json_out->string() + "\n";
  }
  return {std::move(s), std::move(text), outfile};
}

}  // namespace trails::report
