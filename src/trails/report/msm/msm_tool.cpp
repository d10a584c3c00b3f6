#include "trails/report/msm/msm_tool.h"
#include "trails/core/temp_dir.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include <fmt/format.h>
#include <Eigen/Eigenvalues>

#include "trails/analysis/clustering.h"
#include "trails/analysis/counting.h"
#include "trails/analysis/msm_estimation.h"
#include "trails/analysis/msm_model.h"
#include "trails/analysis/pcca.h"
#include "trails/analysis/spectral.h"
#include "trails/analysis/tpt.h"
#include "trails/core/error.h"
#include "trails/report/common/gnuplot.h"
#include "trails/report/common/its_picture.h"
#include "trails/report/common/run_kind.h"
#include "trails/report/common/time_axis.h"
#include "trails/report/msm/dtraj_io.h"
#include "trails/report/msm/msm_network.h"
#include "trails/store/run_store.h"

namespace trails::report {
namespace {

using json = nlohmann::json;

json json_numbers(const Eigen::Ref<const Eigen::VectorXd>& v) {
  json out = json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    out.push_back(std::isfinite(v(i)) ? json(v(i)) : json(nullptr));
  }
  return out;
}

json rows(const Eigen::MatrixXd& m) {
  json out = json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) out.push_back(json_numbers(m.row(i).transpose()));
  return out;
}

struct Model {
  std::vector<int> active;
  Eigen::MatrixXd C, T;
  Eigen::VectorXd pi, timescales;
};

// nullopt when the largest connected set has fewer than 2 states.
std::optional<Model> estimate(const std::vector<std::vector<int>>& dtrajs, int lag, bool reversible,
                              int n_timescales) {
  const Eigen::MatrixXd counts = analysis::count_matrix(dtrajs, lag, -1);
  Model m;
  m.active = analysis::largest_connected_set(counts);
  if (m.active.size() < 2) return std::nullopt;
  m.C = analysis::restrict_to_set(counts, m.active);
  const int k = std::min<int>(n_timescales, static_cast<int>(m.active.size()) - 1);
  if (reversible) {
    auto r = analysis::reversible_mle(m.C);
    m.T = std::move(r.T);
    m.pi = std::move(r.pi);
    m.timescales = analysis::implied_timescales(m.T, m.pi, lag, k);
  } else {
    m.T = analysis::nonreversible_mle(m.C);
    m.pi = analysis::stationary_distribution(m.T);
    // A non-reversible T may have complex eigenvalue pairs: the timescale is -lag/ln|lambda|
    // of the modulus (as deeptime), not of the real part.
    Eigen::EigenSolver<Eigen::MatrixXd> es(m.T, false);
    std::vector<double> mod;
    for (Eigen::Index i = 0; i < es.eigenvalues().size(); ++i)
      mod.push_back(std::abs(es.eigenvalues()(i)));
    std::sort(mod.begin(), mod.end(), std::greater<>());
    m.timescales = analysis::timescales_from_eigenvalues(
        Eigen::Map<const Eigen::VectorXd>(mod.data(), static_cast<Eigen::Index>(mod.size())), lag,
        k);
  }
  return m;
}

// The "pcca" block: PCCA+ with k sets on the reversible model m (k checked by the caller).
json pcca_block(const Model& m, int lag, int k) {
  const analysis::MsmModel model(m.T, lag, true, m.active, m.pi);
  const analysis::Pcca p = analysis::pcca(model, k);
  json j;
  j["n_sets"] = k;
  j["memberships"] = rows(p.memberships);
  j["assignments"] = p.assignments;
  json sets = json::array();
  for (const auto& set : p.sets) {
    json ids = json::array();
    for (const int s : set) ids.push_back(m.active[static_cast<std::size_t>(s)]);
    sets.push_back(ids);
  }
  j["sets"] = sets;
  j["populations"] = json_numbers(p.populations);
  j["coarse_transition_matrix"] = rows(p.coarse_transition);
  j["crispness"] = p.crispness;
  // MFPT (frames) from crisp set a to crisp set b; null where a set is empty (no state has its
  // largest membership there).
  j["mfpt"] = rows(analysis::mfpt_between_sets(model, p.sets));
  return j;
}

}  // namespace

json msm_of_dtrajs(const std::vector<std::vector<int>>& dtrajs, int lag, bool reversible,
                   const std::vector<int>& its_lags, int n_timescales, std::optional<int> pcca) {
  if (lag < 1) throw core::UsageError("--lag must be >= 1");
  if (pcca && !reversible) {
    throw core::UsageError(
        "--pcca needs a reversible model (PCCA+ here assumes detailed "
        "balance); drop --nonreversible or drop --pcca");
  }
  if (pcca && *pcca < 2) {
    throw core::UsageError("--pcca " + std::to_string(*pcca) +
                           ": give at least 2 metastable sets (--pcca K with K >= 2)");
  }
  std::int64_t frames = 0;
  int n_states = 0;
  for (const auto& d : dtrajs) {
    frames += static_cast<std::int64_t>(d.size());
    for (const int s : d) n_states = std::max(n_states, s + 1);
  }
  const auto m = estimate(dtrajs, lag, reversible, n_timescales);
  if (!m) {
    throw core::InputError("no transition at lag " + std::to_string(lag) +
                           " connects two states (the largest strongly connected set has fewer "
                           "than 2 states); use a shorter --lag or longer trajectories");
  }
  const int n_active = static_cast<int>(m->active.size());
  if (pcca && *pcca >= n_active) {
    const std::string fix =
        n_active > 2
            ? "give --pcca K with 2 <= K < " + std::to_string(n_active)
            : std::string("PCCA+ needs at least 3 active states; drop --pcca or use more states");
    throw core::UsageError("--pcca " + std::to_string(*pcca) + ": the model has " +
                           std::to_string(n_active) + " active states; " + fix);
  }
  json j;
  j["lag"] = lag;
  j["reversible"] = reversible;
  j["n_trajectories"] = dtrajs.size();
  j["n_frames"] = frames;
  j["n_states"] = n_states;
  j["active_set"] = m->active;
  j["stationary_distribution"] = json_numbers(m->pi);
  j["transition_matrix"] = rows(m->T);
  j["count_matrix"] = rows(m->C);
  j["timescales"] = json_numbers(m->timescales);
  json its = json::object();
  for (const int l : its_lags) {
    if (l < 1) throw core::UsageError("--its lags must be >= 1");
    const auto mi = estimate(dtrajs, l, reversible, n_timescales);
    its[std::to_string(l)] = mi ? json_numbers(mi->timescales) : json(nullptr);
  }
  j["its"] = its;
  if (pcca) j["pcca"] = pcca_block(*m, lag, *pcca);
  return j;
}

std::vector<std::vector<int>> run_dtrajs(const std::filesystem::path& run_dir, int clusters,
                                         std::uint64_t seed, json* info) {
  if (clusters < 1) throw core::UsageError("--clusters must be >= 1");
  const auto run = open_campaign_run(run_dir, "trails msm");
  const auto& store = run.store;
  const auto records = store.load_iterations();
  if (records.empty())
    throw core::InputError(run_dir.string() + ": the run has no committed iteration");
  const int dim = records.front().cv_dim;
  std::vector<double> points;
  std::vector<std::pair<std::size_t, std::size_t>> segments;  // first point, frames
  for (const auto& rec : records) {
    std::size_t row = 0;
    for (const auto& w : rec.walkers) {
      if (!w.ok) continue;
      const auto n = static_cast<std::size_t>(w.n_frames);
      if (n >= 2) {  // as in the loop: segments of one frame carry no transition
        segments.emplace_back(points.size() / static_cast<std::size_t>(dim), n);
        points.insert(points.end(), rec.cvs.begin() + static_cast<std::ptrdiff_t>(row * dim),
                      rec.cvs.begin() + static_cast<std::ptrdiff_t>((row + n) * dim));
      }
      row += n;
    }
  }
  const auto n_points = static_cast<std::int64_t>(points.size()) / dim;
  const int k = static_cast<int>(std::min<std::int64_t>(clusters, n_points));
  if (k < 1) throw core::InputError(run_dir.string() + ": no walker segment has two frames");
  analysis::KMeansOptions o;
  o.k = k;
  o.seed = seed;
  const auto view = analysis::points_view(points, n_points, dim);
  const auto model = analysis::kmeans(view, o);
  const std::vector<int> labels = analysis::assign(model, view);
  std::vector<std::vector<int>> out;
  for (const auto& [first, n] : segments) {
    out.emplace_back(labels.begin() + static_cast<std::ptrdiff_t>(first),
                     labels.begin() + static_cast<std::ptrdiff_t>(first + n));
  }
  if (info) {
    (*info)["run_dir"] = run_dir.string();
    (*info)["clusters"] = k;
    const auto& c = model.centres;
    (*info)["cluster_centers"] = std::vector<double>(c.data(), c.data() + c.size());
    (*info)["cv_dim"] = dim;
    const auto time = run_time_axis(store, std::nullopt);
    (*info)["frame_ps"] = time.frame_ps ? json(*time.frame_ps) : json(nullptr);
  }
  return out;
}

json msm_report(const MsmRequest& r) {
  std::vector<std::vector<int>> dtrajs;
  json info;
  if (r.run_dir) {
    if (!r.dtrajs.empty()) throw core::UsageError("give DTRAJ files or --run RUN_DIR, not both");
    dtrajs = run_dtrajs(*r.run_dir, r.clusters, r.seed, &info);
  } else {
    if (r.dtrajs.empty())
      throw core::UsageError("msm: give DTRAJ files (.npy or text) or --run RUN_DIR");
    for (const auto& f : r.dtrajs) dtrajs.push_back(read_dtraj(f));
  }
  json j = msm_of_dtrajs(dtrajs, r.lag, r.reversible, r.its_lags, r.n_timescales, r.pcca);
  if (!info.is_null()) j["clustering"] = info;
  return j;
}

namespace {

// Physical time when the model is of a run whose frames have one, else frames.
TimeAxis model_time_axis(const json& model) {
  TimeAxis time;
  if (model.contains("clustering") && model["clustering"].value("frame_ps", json()).is_number()) {
    time.frame_ps = model["clustering"]["frame_ps"].get<double>();
  }
  return time;
}

}  // namespace

void plot_msm_its(const json& model, const core::OutputTarget& png) {
  ItsLadder ladder;
  for (const auto& [lag, ts] : model.at("its").items()) {
    std::vector<double> values;
    if (ts.is_array()) {
      for (const auto& t : ts) values.push_back(t.is_number() ? t.get<double>() : NAN);
    }
    ladder.its[std::stoi(lag)] = values;
  }
  ladder.model_lag = model.at("lag").get<int>();
  const TimeAxis time = model_time_axis(model);
  const core::TempDir scratch("trails-msm");
  const std::filesystem::path& dir = scratch.path();
  const auto drawn = dir / "its.png";
  std::string script = "set terminal pngcairo size 1000,560 enhanced font 'Sans,11'\nset output '" +
                       drawn.string() + "'\n";
  script +=
      its_plot(ladder, time, dir,
               fmt::format("Implied timescales ({} MSM, {} frames in {} trajectories)",
                           model.at("reversible").get<bool>() ? "reversible" : "non-reversible",
                           model.at("n_frames").get<std::int64_t>(),
                           model.at("n_trajectories").get<std::size_t>()));
  run_gnuplot(script, "the implied timescales (--plot)");
  stage_picture(drawn, png, "the implied timescales (--plot)")->commit();
}

void plot_msm_network(const json& model, const core::OutputTarget& png) {
  // The command line refuses --network without --pcca before anything is computed.
  TRAILS_CHECK(model.contains("pcca"), "the PCCA+ network needs a model with a pcca block");
  const CoarseNetwork net = coarse_network_of_model(model);
  const core::TempDir scratch("trails-msm");
  const auto drawn = scratch.path() / "network.png";
  std::string script =
      fmt::format("set terminal pngcairo size 900,{} enhanced font 'Sans,11'\nset output '{}'\n",
                  network_picture_height(net), drawn.string());
  script += network_plot(net, model_time_axis(model), scratch.path());
  run_gnuplot(script, "the PCCA+ network (--network)");
  stage_picture(drawn, png, "the PCCA+ network (--network)")->commit();
}

}  // namespace trails::report
