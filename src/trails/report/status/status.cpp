#include "trails/report/status/status.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "trails/binning/uniform_grid.h"
#include "trails/report/common/kinetics.h"
#include "trails/report/common/msm_builds.h"
#include "trails/report/common/run_kind.h"
#include "trails/report/swarm/swarm_outputs.h"
#include "trails/store/progress_file.h"
#include "trails/store/run_directory_lock.h"
#include "trails/store/run_store.h"

namespace trails::report {
namespace {

nlohmann::json finite_or_null(const std::vector<double>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (const double x : v) out.push_back(std::isfinite(x) ? nlohmann::json(x) : nullptr);
  return out;
}

template <class T, class F>
nlohmann::json or_null(const std::optional<T>& v, F write) {
  return v ? nlohmann::json(write(*v)) : nlohmann::json(nullptr);
}

// The "msm" object of the status: the latest build, as its payload holds it (null where the
// payload has null).
nlohmann::json msm_json(const CheckedMsmBuild& latest, std::size_t n_builds) {
  const auto& m = latest.record;
  const auto as_is = [](const auto& x) { return nlohmann::json(x); };
  return {{"builds", n_builds},
          {"iteration", latest.iteration},
          {"lagtime", m.lagtime},
          {"n_microstates", m.n_microstates},
          {"n_active", m.n_active},
          {"timescales", finite_or_null(m.timescales)},
          {"vamp2", or_null(m.vamp2, as_is)},
          {"streak", m.streak},
          {"converged", m.converged},
          {"note", m.note},
          {"estimator", m.estimator},
          {"timescale_errors", or_null(m.timescale_errors, finite_or_null)},
          {"n_metastable", or_null(m.n_metastable, as_is)},
          {"metastable_populations", or_null(m.metastable_populations, finite_or_null)}};
}

}  // namespace

// A running campaign or swarm holds its store open for writing, and with it the ledger's flock
// (store/run_directory_lock.h).
bool campaign_running(const std::filesystem::path& run_dir) { return store::run_active(run_dir); }

nlohmann::json run_status(const std::filesystem::path& run_dir) {
  const auto run = open_run(run_dir);
  const auto& store = run.store;
  const auto summaries = store.summaries();
  const auto& meta = store.meta();
  nlohmann::json s;
  s["run_dir"] = std::filesystem::absolute(run_dir).string();
  s["schema_version"] = meta.schema_version;
  s["trails_version"] = meta.trails_version;
  s["created_at"] = meta.created_at;
  s["config_digest"] = meta.config_digest;
  // What the engine reported about its system, with its name under "engine" (RunMeta).
  s["engine"] = meta.engine_system.is_object() ? meta.engine_system : nlohmann::json::object();
  s["running"] = campaign_running(run_dir);
  s["kind"] = to_string(run.kind);
  s["iterations_committed"] = summaries.size();
  // Keys changed on resume (docs/reliability.md, "What may change on resume").
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& c : store.config_changes()) {
    changes.push_back({{"iteration", c.iteration},
                       {"key", c.key},
                       {"before", c.before},
                       {"after", c.after},
                       {"changed_at", c.changed_at}});
  }
  s["config_changes"] = std::move(changes);
  // The running iteration's walkers (progress.json), only while a campaign runs and only for the
  // iteration after the last committed one: an older file is stale.
  const std::int64_t next = summaries.empty() ? 0 : summaries.back().iteration + 1;
  if (const auto p = store::read_progress(run_dir); p && s["running"] && p->iteration == next) {
    s["in_progress"] = {{"iteration", p->iteration},
                        {"walkers", p->walkers},
                        {"done", p->done},
                        {"failed", p->failed},
                        {"running", p->running},
                        {"queued", p->queued},
                        {"elapsed_s", p->elapsed_s},
                        {"eta_s", p->eta_s ? nlohmann::json(*p->eta_s) : nlohmann::json()},
                        {"updated_at", p->updated_at}};
  }
  if (summaries.empty()) return s;
  if (run.kind == RunKind::Swarm) {  // chains and cycles instead of iterations (docs/swarm.md)
    s["swarm"] = swarm_status(store);
    return s;
  }

  const auto& last = summaries.back();
  const auto& state = last.state;
  double runner = 0.0, analysis = 0.0;
  for (const auto& it : summaries) {
    runner += it.runner_s;
    analysis += it.analysis_s;
  }
  // While a run is active, its own target (a --resume may have raised the stored one).
  std::int64_t target = state.value("target_iterations", last.iteration + 1);
  if (const auto p = store::read_progress(run_dir);
      p && s["running"] && p->iteration == last.iteration + 1 && p->target_iterations) {
    target = *p->target_iterations;
  }
  const std::size_t recent = std::min<std::size_t>(summaries.size(), 5);
  double recent_s = 0.0;
  for (std::size_t i = summaries.size() - recent; i < summaries.size(); ++i) {
    recent_s += summaries[i].runner_s + summaries[i].analysis_s;
  }
  const auto& resolution = state.at("resolution");
  // The in-loop MSM: the latest recorded build (its convergence monitor included).
  const auto builds = checked_msm_builds(store);
  bool msm_converged = false;
  std::string msm_reason;
  if (!builds.empty()) {
    msm_converged = builds.back().record.converged;
    msm_reason = builds.back().record.reason;
    s["msm"] = msm_json(builds.back(), builds.size());
  }
  const bool occupancy_converged = resolution.value("converged", false);
  const bool converged = occupancy_converged || msm_converged;
  const std::int64_t remaining =
      converged ? 0 : std::max<std::int64_t>(0, target - last.iteration - 1);

  s["last_iteration"] = last.iteration;
  s["last_committed_at"] = last.committed_at;
  s["target_iterations"] = target;
  s["walkers"] = {{"last_iteration", last.successful_walkers + last.failed_walkers},
                  {"successful", last.successful_walkers},
                  {"failed", last.failed_walkers}};
  s["frames"] = {{"last_iteration", last.frames}, {"cumulative", last.cumulative_frames}};
  s["occupancy"] = {{"occupied_bins", last.occupied_bins},
                    {"total_bins", last.total_bins},
                    {"fraction", binning::occupied_fraction(last.occupied_bins, last.total_bins)}};
  s["resolution"] = {{"n_bins", resolution.at("n_bins")}};
  // A Voronoi run climbs its cell count instead of the grid (compat:voronoi-resolution).
  if (resolution.contains("cells")) {
    s["resolution"]["voronoi_cells"] = resolution.at("cells");
    const auto& spawning =
        store.meta().effective_config.value("spawning", nlohmann::json::object());
    s["resolution"]["voronoi_max_clusters"] =
        spawning.value("voronoi_max_clusters", nlohmann::json(nullptr));
  }
  s["convergence"] = {
      {"converged", converged},
      {"reason", occupancy_converged ? resolution.value("reason", "") : msm_reason}};
  s["time"] = {{"runner_s", runner},
               {"analysis_s", analysis},
               {"analysis_fraction", runner > 0 ? analysis / runner : 0.0},
               {"mean_iteration_s", (runner + analysis) / static_cast<double>(summaries.size())}};
  s["eta_s"] = recent_s / static_cast<double>(recent) * static_cast<double>(remaining);
  // Weighted-ensemble recycling: the Hill-relation MFPT so far (docs/kinetics.md).
  if (const auto k = kinetics_series(store, std::nullopt)) s["kinetics"] = mfpt_json(*k, 0.5);

  // Where the last iteration's walkers ran (the GPU-binding record), grouped in walker order.
  nlohmann::json placement = nlohmann::json::array();
  for (const auto& w : store.walker_placements(last.iteration)) {
    nlohmann::json where = {{"platform", w.platform},
                            {"device", w.device},
                            {"visible_devices", w.visible_devices},
                            {"host", w.host}};
    auto it = std::find_if(placement.begin(), placement.end(),
                           [&](const nlohmann::json& p) { return p.at("where") == where; });
    if (it == placement.end()) {
      placement.push_back({{"where", where}, {"walkers", nlohmann::json::array()}});
      it = placement.end() - 1;
    }
    (*it)["walkers"].push_back(w.walker);
  }
  s["placement"] = std::move(placement);
  return s;
}

namespace {

std::string format_in_progress(const nlohmann::json& s) {
  if (!s.contains("in_progress")) return "";
  const auto& p = s["in_progress"];
  return fmt::format(
      "in progress     iteration {}: walkers {}/{} done ({} failed), {} running, {} queued, "
      "{:.1f} s elapsed, ETA {} (at {})\n",
      p["iteration"].get<std::int64_t>(), p["done"].get<int>(), p["walkers"].get<int>(),
      p["failed"].get<int>(), p["running"].get<int>(), p["queued"].get<int>(),
      p["elapsed_s"].get<double>(),
      p["eta_s"].is_number() ? fmt::format("{:.1f} s", p["eta_s"].get<double>()) : "-",
      p["updated_at"].get<std::string>());
}

std::string format_config_changes(const nlohmann::json& s) {
  std::string out;
  for (const auto& c : s.value("config_changes", nlohmann::json::array())) {
    out +=
        fmt::format("changed         {} {} -> {} from iteration {} (at {})\n",
                    c.at("key").get<std::string>(), c.at("before").dump(), c.at("after").dump(),
                    c.at("iteration").get<std::int64_t>(), c.at("changed_at").get<std::string>());
  }
  return out;
}

}  // namespace

std::string format_status(const nlohmann::json& s) {
  std::string out = fmt::format("run directory   {}\n", s.at("run_dir").get<std::string>());
  out +=
      fmt::format("state           {}\n", s.at("running").get<bool>() ? "running" : "not running");
  // A swarm commits one store iteration per chain-cycle (docs/swarm.md): it counts cycles.
  if (s.value("kind", "campaign") == "swarm") {
    out += fmt::format("cycles          {} committed\n",
                       s.at("iterations_committed").get<std::int64_t>());
    return s.contains("swarm") ? out + format_swarm_status(s.at("swarm")) : out;
  }
  out +=
      fmt::format("iterations      {} committed", s.at("iterations_committed").get<std::int64_t>());
  if (!s.contains("last_iteration")) {
    return out + "\n" + format_in_progress(s) + format_config_changes(s);
  }
  out += fmt::format(" of {} (last at {})\n", s["target_iterations"].get<std::int64_t>(),
                     s["last_committed_at"].get<std::string>());
  out += format_in_progress(s);
  out += format_config_changes(s);
  out += fmt::format("walkers         {} in the last iteration ({} failed)\n",
                     s["walkers"]["last_iteration"].get<std::int64_t>(),
                     s["walkers"]["failed"].get<std::int64_t>());
  out += fmt::format("frames          {} cumulative ({} in the last iteration)\n",
                     s["frames"]["cumulative"].get<std::int64_t>(),
                     s["frames"]["last_iteration"].get<std::int64_t>());
  out += fmt::format("occupancy       {}/{} bins ({:.2f} %)\n",
                     s["occupancy"]["occupied_bins"].get<std::int64_t>(),
                     s["occupancy"]["total_bins"].get<std::int64_t>(),
                     100.0 * s["occupancy"]["fraction"].get<double>());
  out += fmt::format("resolution      n_bins {}", s["resolution"]["n_bins"].dump());
  if (s["resolution"].contains("voronoi_cells")) {
    const auto& cap = s["resolution"]["voronoi_max_clusters"];
    out += fmt::format(", Voronoi cells {}{}", s["resolution"]["voronoi_cells"].get<int>(),
                       cap.is_number() ? fmt::format(" (max {})", cap.get<int>()) : "");
  }
  out += "\n";
  if (s.contains("msm")) {
    const auto& m = s["msm"];
    std::string ts;
    for (const auto& t : m["timescales"]) {
      ts += (ts.empty() ? "" : ", ") +
            (t.is_number() ? fmt::format("{:.4g}", t.get<double>()) : "inf");
    }
    out += fmt::format(
        "msm             build at iteration {} ({} builds): lag {}, {}/{} active states, "
        "timescales [{}] frames, VAMP-2 {}, {}\n",
        m["iteration"].get<std::int64_t>(), m["builds"].get<std::int64_t>(),
        m["lagtime"].get<int>(), m["n_active"].get<int>(), m["n_microstates"].get<int>(), ts,
        m["vamp2"].is_number() ? fmt::format("{:.6g}", m["vamp2"].get<double>()) : "n/a",
        m["converged"].get<bool>()
            ? "converged"
            : fmt::format("not converged (streak {})", m["streak"].get<int>()));
    if (m["timescale_errors"].is_array()) {
      std::string err;
      for (const auto& e : m["timescale_errors"]) {
        err += (err.empty() ? "" : ", ") +
               (e.is_number() ? fmt::format("{:.3g}", e.get<double>()) : "n/a");
      }
      out += fmt::format("                Bayesian MSM: timescale std [{}] frames\n", err);
    }
    if (m["metastable_populations"].is_array()) {
      std::string pop;
      for (const auto& p : m["metastable_populations"])
        pop += fmt::format("{}{:.3f}", pop.empty() ? "" : ", ", p.get<double>());
      out += fmt::format("                PCCA+ {} metastable sets: populations [{}]\n",
                         m["n_metastable"].get<int>(), pop);
    } else if (m["n_metastable"].is_number()) {
      out += fmt::format(
          "                PCCA+ {} metastable sets: not computed (too few active states)\n",
          m["n_metastable"].get<int>());
    }
  }
  if (s.contains("kinetics")) out += mfpt_text(s["kinetics"]);
  const bool converged = s["convergence"]["converged"].get<bool>();
  out += fmt::format("convergence     {}\n",
                     converged ? "converged: " + s["convergence"]["reason"].get<std::string>()
                               : std::string("not converged"));
  out += fmt::format(
      "time            MD {:.2f} s, analysis {:.2f} s ({:.2f} % of MD), {:.3f} s per iteration\n",
      s["time"]["runner_s"].get<double>(), s["time"]["analysis_s"].get<double>(),
      100.0 * s["time"]["analysis_fraction"].get<double>(),
      s["time"]["mean_iteration_s"].get<double>());
  out += fmt::format("ETA             {:.1f} s\n", s["eta_s"].get<double>());
  for (const auto& p : s.value("placement", nlohmann::json::array())) {
    const auto& where = p.at("where");
    std::string text = where.at("platform").get<std::string>();
    const auto device = where.at("device").get<std::string>();
    const auto visible = where.at("visible_devices").get<std::string>();
    if (!device.empty()) text += ", device " + device;
    if (!visible.empty()) text += ", visible " + visible;
    text += " on " + where.at("host").get<std::string>();
    out += fmt::format("ran on          {} ({} walker(s) of the last iteration)\n", text,
                       p.at("walkers").size());
  }
  return out;
}

}  // namespace trails::report
