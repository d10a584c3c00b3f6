// JSON views of a CampaignConfig (campaign_config.h): the result-relevant subset whose digest
// guards --resume, the full effective configuration, the MD system's part of them (both drivers'
// records), the bound rows written back, and the keys a --resume may change (their digest and
// comparison: config_digest.h). nlohmann's objects keep keys sorted and doubles print
// shortest-round-trip, so dump() is canonical.
#include <algorithm>

#include "trails/config/campaign_config.h"
#include "trails/config/engines/engine_module.h"
#include "trails/config/key_row.h"
#include "trails/config/schema.h"

namespace trails::config {
namespace {

using json = nlohmann::json;

template <class T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

template <class T>
json list_or_null(const std::vector<T>& v) {
  return v.empty() ? json(nullptr) : json(v);
}

}  // namespace

void md_system_values(const MdSystemConfig& md, bool all, json& j) {
  json& e = j["engine"];
  e["md_engine"] = md.engine.md_engine;
  e["seed"] = md.engine_seed_base();  // None means random_seed: the value that matters
  e["dt"] = md.engine.md.dt;
  j["system"]["start"] = list_or_null(md.system.start);
  // The engine's own keys, only when it is the run's, so other digests stay as they were (and
  // those of an engine whose keys every record holds).
  for (const detail::EngineModule* module : detail::engine_modules()) {
    if (module->in_every_record || module->name == md.engine.md_engine) {
      module->values(md, all, j);
    }
  }
}

namespace detail {

namespace {

json& place_of(const KeySpec& row, json& j) {
  return row.block.empty() ? j[std::string(row.name)]
                           : j[std::string(row.block)][std::string(row.name)];
}

}  // namespace

void bound_values(const std::vector<KeySpec>& rows, const MdSystemConfig& md, bool all, json& j) {
  for (const KeySpec& row : rows) {
    if (!row.read_md || (row.effective_only && !all)) continue;
    json value = row.read_md(md);
    if (row.written_when_set && value == row.default_value) continue;
    place_of(row, j) = std::move(value);
  }
}

void campaign_bound_values(const CampaignConfig& c, bool all, json& j) {
  for (const KeySpec& row : all_keys()) {
    if (!row.read || (row.effective_only && !all)) continue;
    if (row.written_if != nullptr && !row.written_if(c)) continue;
    // A neural space's key (K::model) only with the spaces that read it.
    if (row.used_with_key == kSpaceKey && std::find(row.used_with.begin(), row.used_with.end(),
                                                    c.space_mode) == row.used_with.end()) {
      continue;
    }
    json value = row.read(c);
    if (row.written_when_set && value == row.default_value) continue;
    place_of(row, j) = std::move(value);
  }
}

}  // namespace detail

namespace {

json built_values(const CampaignConfig& c, bool all) {
  json j;
  // The campaign's bound rows (key_row.h: the top level, the learned space), then the rest.
  detail::campaign_bound_values(c, all, j);
  j["n_bins"] = c.n_bins;
  if (c.learned_space()) j["adaptive_model"]["latent_dim"] = c.cv_dimension();
  j["binning"]["scheme"] = c.binning.scheme;
  // The adaptive schemes' keys only with them, so uniform runs' digests are unchanged.
  if (c.binning.scheme == "gradient" || c.binning.scheme == "mab") {
    j["binning"]["n_fine"] = c.binning.n_fine;
  }
  if (c.binning.scheme == "gradient") j["binning"]["smoothing"] = c.binning.smoothing;
  md_system_values(c, all, j);
  json& e = j["engine"];

  json& s = j["spawning"];
  const SpawningConfig& sp = c.spawning;
  s["walker"] = sp.walker;
  s["step"] = sp.step;
  s["stride"] = sp.stride;
  s["spawn_scheme"] = sp.spawn_scheme;
  s["spawn_type"] = sp.spawn_type == SpawnType::Hard ? "hard" : "soft";
  s["recent_density_window"] = sp.recent_density_window;
  s["search_mode"] = sp.search_mode == SearchMode::Target ? "target" : "explore";
  s["target"] = list_or_null(sp.target);
  s["history_window"] = optional_json(sp.history_window);
  s["convergence_patience"] = sp.convergence_patience;
  s["resolution_check_patience"] = sp.resolution_check_patience;
  s["resolution_max_bins"] = sp.resolution_max_bins;
  s["voronoi_max_clusters"] = sp.voronoi_max_clusters;

  // Scheme keys only with the scheme that reads them, so other runs' digests are unchanged.
  if (sp.spawn_scheme == "voronoi") {
    s["voronoi_clusters"] = sp.voronoi_clusters;
    s["voronoi_periodic"] = sp.voronoi_periodic;
  }
  if (sp.spawn_scheme == "lof") s["lof_neighbors"] = sp.lof_neighbors;
  if (sp.spawn_scheme == "we") {
    s["inherit_velocities"] = sp.inherit_velocities;
    s["recycle_target"] = sp.recycle_target.empty() ? json(nullptr) : json(sp.recycle_target);
    s["recycle_basis_index"] = sp.recycle_basis_index;
    s["we_target_per_bin"] = sp.we_target_per_bin;
    s["we_allocation"] = sp.we_per_bin ? "per_bin" : "budget";
  }
  if (sp.spawn_scheme == "msm") {  // only then do they change results (keeps old digests)
    s["voronoi_clusters"] = sp.voronoi_clusters;
    j["msm"]["spawn_alpha"] = c.msm.spawn_alpha;
    j["msm"]["spawn_leverage"] = c.msm.spawn_leverage;
    j["msm"]["spawn_uncertainty"] = c.msm.spawn_uncertainty;
  }
  // The msm block only when enabled, so digests of runs without it stay what they were.
  if (c.msm.enabled) {
    const MsmConfig& m = c.msm;
    json& x = j["msm"];
    x["enabled"] = true;
    x["cadence"] = m.cadence;
    x["min_frames"] = m.min_frames;
    x["n_microstates"] = m.n_microstates;
    x["cluster_method"] = m.cluster_method == ClusterMethod::KMeans ? "kmeans" : "regspace";
    x["stable_clustering"] = m.stable_clustering;
    x["lagtime"] = m.lagtime;
    x["n_timescales"] = m.n_timescales;
    if (m.bayesian) {
      x["estimator"] = "bayesian";
      x["n_bayesian_samples"] = m.n_bayesian_samples;
    }
    if (m.n_metastable) x["n_metastable"] = *m.n_metastable;
    x["lagtimes"] = list_or_null(m.lagtimes);
    json crit = json::object();
    if (m.criteria.its_tol)
      crit["implied_timescales"] = {{"tol", *m.criteria.its_tol}, {"n", m.criteria.its_n}};
    if (m.criteria.vamp2_tol) crit["vamp2"] = {{"tol", *m.criteria.vamp2_tol}};
    if (m.criteria.tm_tol) {
      crit["transition_matrix"] = {{"tol", *m.criteria.tm_tol},
                                   {"min_flux", m.criteria.tm_min_flux}};
    }
    if (m.criteria.populations_tol)
      crit["stationary_distribution"] = {{"tol", *m.criteria.populations_tol}};
    if (m.criteria.error_tol) crit["statistical_error"] = {{"tol", *m.criteria.error_tol}};
    x["convergence_criteria"] = crit;
    x["convergence_mode"] = m.convergence_mode == ConvergenceMode::All ? "all" : "any";
    x["convergence_patience"] = m.convergence_patience;
    x["min_explored_fraction"] = m.min_explored_fraction;
  } else if (all) {
    j["msm"]["enabled"] = false;
  }
  if (all) {
    s["voronoi_clusters"] = sp.voronoi_clusters;
    j["msm"]["spawn_alpha"] = c.msm.spawn_alpha;
    j["msm"]["spawn_leverage"] = c.msm.spawn_leverage;
    j["msm"]["spawn_uncertainty"] = c.msm.spawn_uncertainty;
  }

  // The output block only when it reduces the shards, so digests of other runs stay as they
  // were; a resume may not change what the shards of one run record.
  if (c.output.reduces() || all) {
    j["output"]["record_selection"] = optional_json(c.output.record_selection);
    j["output"]["precision"] = c.output.float32 ? "float32" : "float64";
  }
  // Likewise the position grid only when it is not the engine's default, so a run made before
  // the key existed keeps its digest (its store says its shards are exact: RunMeta).
  const double grid = c.output.position_precision;
  if (grid != c.default_position_precision() || all) {
    j["output"]["position_precision"] = grid > 0.0 ? json(grid) : json("exact");
  }
  if (all) {
    j["config_file"] = c.config_file.string();
    s["max_workers"] = sp.max_workers;
    j["execution"]["backend"] = c.execution.backend;
    j["execution"]["persistent_workers"] = c.execution.persistent_workers;
    j["execution"]["walker_timeout"] = optional_json(c.execution.walker_timeout);
    const ExecutionConfig& x = c.execution;
    const json devices = x.devices.empty() ? json(nullptr) : json(x.devices);
    j["execution"]["devices"] = devices;
    if (x.devices_key == "engine.gpu_ids") e["gpu_ids"] = devices;
    j["execution"]["workers_per_device"] =
        x.workers_per_device == 0 ? json("auto") : json(x.workers_per_device);
    j["execution"]["binding_check"] = x.binding_check;
  }
  return j;
}

}  // namespace

json CampaignConfig::result_relevant_json() const { return built_values(*this, false); }

json CampaignConfig::effective_json() const {
  // Keys this build does not implement hold their Trails-MD defaults here: a loaded config has
  // them at their defaults or where they have no effect (CampaignConfig::notes), so the table
  // supplies them; the implemented keys come from the struct.
  json j = json::object();
  for (const auto& key : detail::all_keys()) {
    if (key.block == "spawning" && key.name == "n_bins") continue;  // promoted to top level
    if (key.block.empty()) {
      j[std::string(key.name)] = key.default_value;
    } else {
      j[std::string(key.block)][std::string(key.name)] = key.default_value;
    }
  }
  const json built = built_values(*this, true);
  for (const auto& [key, value] : built.items()) {
    if (value.is_object()) {
      for (const auto& [k, v] : value.items()) j[key][k] = v;
    } else {
      j[key] = value;
    }
  }
  return j;
}

const std::vector<std::string>& resume_changeable_keys() {
  static const std::vector<std::string> keys = {"engine.dt", "engine.platform_name",
                                                "engine.precision", "engine.reproducibility",
                                                "min_success_fraction"};
  return keys;
}

bool changeable_on_resume(const std::string& key) {
  const auto& keys = resume_changeable_keys();
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

}  // namespace trails::config
