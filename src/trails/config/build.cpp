// build_md_system() and build_config(): the typed MdSystemConfig and CampaignConfig from the
// first pass's JSON values: the bound rows (key_row.h) fill themselves, the rest is built here.
// Declared in cross_checks.h next to the rules they rely on.
#include <algorithm>
#include <string>

#include "trails/config/cross_checks.h"
#include "trails/config/engines/engine_module.h"

namespace trails::config::detail {
namespace {

using json = nlohmann::json;

int as_int(const RawConfig& raw, const std::string& key, int fallback) {
  const json& v = raw.value(key);
  return v.is_number_integer() ? v.get<int>() : fallback;
}

double as_double(const RawConfig& raw, const std::string& key, double fallback) {
  const json& v = raw.value(key);
  return v.is_number() ? v.get<double>() : fallback;
}

std::string as_string(const RawConfig& raw, const std::string& key) {
  const json& v = raw.value(key);
  return v.is_string() ? v.get<std::string>() : raw.at(key).spec->default_value.get<std::string>();
}

bool as_bool(const RawConfig& raw, const std::string& key, bool fallback) {
  const json& v = raw.value(key);
  return v.is_boolean() ? v.get<bool>() : fallback;
}

std::vector<double> as_doubles(const json& v) {
  std::vector<double> out;
  if (v.is_array()) {
    for (const auto& x : v) {
      if (x.is_number()) out.push_back(x.get<double>());
    }
  }
  return out;
}

std::optional<std::string> as_optional_string(const RawConfig& raw, const std::string& key) {
  const json& v = raw.value(key);
  if (!v.is_string()) return std::nullopt;
  return v.get<std::string>();
}

std::vector<std::string> as_strings(const RawConfig& raw, const std::string& key) {
  std::vector<std::string> out;
  if (const json& v = raw.value(key); v.is_array()) {
    for (const auto& e : v) {
      if (e.is_string()) out.push_back(e.get<std::string>());
    }
  }
  return out;
}

// execution.* of the scheduler backends (docs/execution.md, "Scheduler arrays").
void build_scheduler(const RawConfig& raw, SchedulerConfig& s) {
  const std::string x = "execution.";
  s.partition = as_optional_string(raw, x + "partition");
  s.account = as_optional_string(raw, x + "account");
  s.walltime = as_string(raw, x + "walltime");
  s.cpus_per_task = as_int(raw, x + "cpus_per_task", s.cpus_per_task);
  s.gpus_per_task = as_int(raw, x + "gpus_per_task", s.gpus_per_task);
  s.gres = as_optional_string(raw, x + "gres");
  s.memory = as_optional_string(raw, x + "memory");
  s.extra_directives = as_strings(raw, x + "extra_directives");
  s.module_loads = as_strings(raw, x + "module_loads");
  s.job_name = as_string(raw, x + "job_name");
  if (const json& v = raw.value(x + "max_array_size"); v.is_number_integer())
    s.max_array_size = v.get<int>();
  if (const json& v = raw.value(x + "max_in_flight"); v.is_number_integer())
    s.max_in_flight = v.get<int>();
  s.submit_retry_limit = as_int(raw, x + "submit_retry_limit", s.submit_retry_limit);
  s.submit_retry_interval_s =
      as_double(raw, x + "submit_retry_interval", s.submit_retry_interval_s);
  s.submit_timeout_s = as_double(raw, x + "submit_timeout", s.submit_timeout_s);
  s.poll_interval_s = as_double(raw, x + "poll_interval", s.poll_interval_s);
  if (const json& v = raw.value(x + "wait_timeout"); v.is_number())
    s.wait_timeout_s = v.get<double>();
  s.marker_grace_s = as_double(raw, x + "marker_grace", s.marker_grace_s);
  s.max_retries = as_int(raw, x + "max_retries", s.max_retries);
  s.walkers_per_task = as_int(raw, x + "walkers_per_task", s.walkers_per_task);
  if (const json& v = raw.value(x + "heartbeat_timeout"); v.is_number())
    s.heartbeat_timeout_s = v.get<double>();
  s.scratch = as_optional_string(raw, x + "scratch");
}

void build_msm(const RawConfig& raw, MsmConfig& m) {
  if (const json& v = raw.value("msm.enabled"); v.is_boolean()) m.enabled = v.get<bool>();
  m.cadence = as_int(raw, "msm.cadence", m.cadence);
  m.min_frames = as_int(raw, "msm.min_frames", m.min_frames);
  m.n_microstates = as_int(raw, "msm.n_microstates", m.n_microstates);
  m.cluster_method = as_string(raw, "msm.cluster_method") == "regspace"
                         ? ClusterMethod::RegularSpace
                         : ClusterMethod::KMeans;
  if (const json& v = raw.value("msm.stable_clustering"); v.is_boolean()) {
    m.stable_clustering = v.get<bool>();
  }
  m.lagtime = as_int(raw, "msm.lagtime", m.lagtime);
  m.n_timescales = as_int(raw, "msm.n_timescales", m.n_timescales);
  m.bayesian = as_string(raw, "msm.estimator") == "bayesian";
  m.n_bayesian_samples = as_int(raw, "msm.n_bayesian_samples", m.n_bayesian_samples);
  if (const json& v = raw.value("msm.n_metastable"); v.is_number_integer())
    m.n_metastable = v.get<int>();
  if (const json& v = raw.value("msm.lagtimes"); v.is_array())
    m.lagtimes = v.get<std::vector<int>>();
  m.convergence_mode =
      as_string(raw, "msm.convergence_mode") == "any" ? ConvergenceMode::Any : ConvergenceMode::All;
  m.convergence_patience = as_int(raw, "msm.convergence_patience", m.convergence_patience);
  m.min_explored_fraction = as_double(raw, "msm.min_explored_fraction", m.min_explored_fraction);
  m.spawn_alpha = as_double(raw, "msm.spawn_alpha", m.spawn_alpha);
  m.spawn_leverage = as_double(raw, "msm.spawn_leverage", m.spawn_leverage);
  if (const json& v = raw.value("msm.spawn_uncertainty"); v.is_boolean())
    m.spawn_uncertainty = v.get<bool>();
  const json& crit = raw.value("msm.convergence_criteria").is_object()
                         ? raw.value("msm.convergence_criteria")
                         : raw.at("msm.convergence_criteria").spec->default_value;
  // Already validated by check_msm(): names, parameter names and ranges.
  for (const auto& item : crit.items()) {
    // Not a structured binding: clang before 16 cannot capture one in the lambda below.
    const std::string& name = item.key();
    const json& params = item.value();
    const auto num = [&](const char* k, double fallback) {
      return params.is_object() && params.contains(k) && params[k].is_number()
                 ? params[k].get<double>()
                 : fallback;
    };
    if (name == "its" || name == "implied_timescales") {
      m.criteria.its_tol = num("tol", 0.1);
      m.criteria.its_n = static_cast<int>(num("n", num("n_timescales", 2)));
    } else if (name == "vamp2") {
      m.criteria.vamp2_tol = num("tol", 0.05);
    } else if (name == "transition_matrix") {
      m.criteria.tm_tol = num("tol", 0.2);
      m.criteria.tm_min_flux = num("min_flux", 1e-4);
    } else if (name == "stationary_distribution") {
      m.criteria.populations_tol = num("tol", 0.05);
    } else if (name == "statistical_error") {
      m.criteria.error_tol = num("tol", 0.1);
    }
  }
}

}  // namespace

void build_md_system(const RawConfig& raw, MdSystemConfig& md) {
  // The rows bound to their members (key_row.h) fill themselves; the rest is built below.
  for (const KeySpec& key : all_keys()) {
    if (key.fill_md) key.fill_md(md, raw.value(key.dotted()));
  }
  if (const EngineModule* module = engine_module(md.engine.md_engine); module && module->finish) {
    module->finish(raw, md);
  }
  apply_md_block(md.engine);
  // system.start: one point becomes a one-element list, so consumers see a single shape.
  if (const json& start = raw.value("system.start"); start.is_array() && !start.empty()) {
    if (start[0].is_array()) {
      for (const auto& point : start) md.system.start.push_back(as_doubles(point));
    } else {
      md.system.start.push_back(as_doubles(start));
    }
  }
  ExecutionConfig& x = md.execution;
  x.backend = as_string(raw, "execution.backend");
  x.persistent_workers = as_bool(raw, "execution.persistent_workers", x.persistent_workers);
  if (const json& v = raw.value("execution.walker_timeout"); v.is_number()) {
    x.walker_timeout = v.get<double>();
  }
  // engine.gpu_ids is Trails-MD's name for the same setting (both set: check_execution).
  for (const char* key : {"execution.devices", "engine.gpu_ids"}) {
    if (const json& v = raw.value(key); v.is_array()) {
      x.devices = v.get<std::vector<int>>();
      x.devices_key = key;
    }
  }
  x.workers_per_device =  // auto: 0 (ExecutionConfig)
      raw.value("execution.workers_per_device") == "auto"
          ? 0
          : as_int(raw, "execution.workers_per_device", x.workers_per_device);
  x.binding_check = as_string(raw, "execution.binding_check");
  build_scheduler(raw, x.scheduler);
}

CampaignConfig build_config(const RawConfig& raw) {
  CampaignConfig c;
  build_md_system(raw, c);
  // The campaign's own bound rows (the top level, the learned space); the rest is built below.
  for (const KeySpec& key : all_keys()) {
    if (key.fill) key.fill(c, raw.value(key.dotted()));
  }
  c.n_bins = effective_n_bins(raw);
  c.binning.scheme = as_string(raw, "binning.scheme");
  c.binning.n_fine = as_int(raw, "binning.n_fine", c.binning.n_fine);
  c.binning.smoothing = as_int(raw, "binning.smoothing", c.binning.smoothing);

  SpawningConfig& s = c.spawning;
  s.walker = as_int(raw, "spawning.walker", s.walker);
  s.step = as_int(raw, "spawning.step", s.step);
  s.stride = as_int(raw, "spawning.stride", s.stride);
  // More workers than walkers would only start idle threads: capped (docs/configuration.md).
  s.max_workers = std::min(as_int(raw, "spawning.max_workers", s.max_workers), s.walker);
  s.spawn_scheme = as_string(raw, "spawning.spawn_scheme");
  // Trails-MD treats every spawn_type other than "hard" as probabilistic (= soft).
  s.spawn_type =
      as_string(raw, "spawning.spawn_type") == "hard" ? SpawnType::Hard : SpawnType::Soft;
  s.recent_density_window = as_int(raw, "spawning.recent_density_window", s.recent_density_window);
  s.search_mode =
      as_string(raw, "spawning.search_mode") == "target" ? SearchMode::Target : SearchMode::Explore;
  // As in Trails-MD, a target only matters in target mode; dropping it otherwise keeps the
  // result digest independent of a value that has no effect.
  if (s.search_mode == SearchMode::Target) s.target = as_doubles(raw.value("spawning.target"));
  if (const json& v = raw.value("spawning.history_window"); v.is_number_integer()) {
    s.history_window = v.get<int>();
  }
  s.convergence_patience = as_int(raw, "spawning.convergence_patience", s.convergence_patience);
  s.resolution_check_patience =
      as_int(raw, "spawning.resolution_check_patience", s.resolution_check_patience);
  s.resolution_max_bins = as_int(raw, "spawning.resolution_max_bins", s.resolution_max_bins);
  s.voronoi_max_clusters = as_int(raw, "spawning.voronoi_max_clusters", s.voronoi_max_clusters);
  s.voronoi_clusters = as_int(raw, "spawning.voronoi_clusters", s.voronoi_clusters);
  s.voronoi_periodic = as_bool(raw, "spawning.voronoi_periodic", s.voronoi_periodic);
  s.lof_neighbors = as_int(raw, "spawning.lof_neighbors", s.lof_neighbors);
  s.inherit_velocities = as_bool(raw, "spawning.inherit_velocities", s.inherit_velocities);
  if (const json& v = raw.value("spawning.recycle_target"); v.is_array()) {
    for (const auto& box : v)
      s.recycle_target.push_back({box[0].get<double>(), box[1].get<double>()});
  }
  s.recycle_basis_index = as_int(raw, "spawning.recycle_basis_index", s.recycle_basis_index);
  s.we_target_per_bin = as_int(raw, "spawning.we_target_per_bin", s.we_target_per_bin);
  s.we_per_bin = as_string(raw, "spawning.we_allocation") == "per_bin";
  build_msm(raw, c.msm);
  if (const json& v = raw.value("output.record_selection"); v.is_string()) {
    c.output.record_selection = v.get<std::string>();
  }
  c.output.float32 = as_string(raw, "output.precision") == "float32";
  // Unset: the engine's default (CampaignConfig::default_position_precision).
  if (const Entry& e = raw.at("output.position_precision"); e.present && e.valid) {
    c.output.position_precision = e.value == "exact" ? 0.0 : e.value.get<double>();
  } else {
    c.output.position_precision = c.default_position_precision();
  }
  return c;
}

}  // namespace trails::config::detail
