// build_config(): the typed CampaignConfig from the first pass's JSON values. Declared in
// cross_checks.h next to the rules it relies on.
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

std::optional<std::filesystem::path> as_path(const RawConfig& raw, const std::string& key) {
  const json& v = raw.value(key);
  if (!v.is_string()) return std::nullopt;
  return std::filesystem::path(v.get<std::string>());
}

std::vector<int> as_ints(const RawConfig& raw, const std::string& key,
                         const std::vector<int>& fallback) {
  const json& v = raw.value(key);
  return v.is_array() ? v.get<std::vector<int>>() : fallback;
}

void build_model(const RawConfig& raw, LearnedModelConfig& m) {
  m.encoder_hidden_dims = as_ints(raw, "adaptive_model.encoder_hidden_dims", m.encoder_hidden_dims);
  m.decoder_hidden_dims = as_ints(raw, "adaptive_model.decoder_hidden_dims", m.decoder_hidden_dims);
  m.deep_tica_hidden_dims =
      as_ints(raw, "adaptive_model.deep_tica_hidden_dims", m.deep_tica_hidden_dims);
  m.dropout_rate = as_double(raw, "adaptive_model.dropout_rate", m.dropout_rate);
  m.learning_rate = as_double(raw, "adaptive_model.learning_rate", m.learning_rate);
  m.epochs = as_int(raw, "adaptive_model.epochs", m.epochs);
  if (const json& v = raw.value("adaptive_model.batch_size"); v.is_number_integer()) {
    m.batch_size = v.get<int>();
  }
  m.tvae_beta = as_double(raw, "adaptive_model.tvae_beta", m.tvae_beta);
  m.spib_n_states = as_int(raw, "adaptive_model.spib_n_states", m.spib_n_states);
  m.spib_beta = as_double(raw, "adaptive_model.spib_beta", m.spib_beta);
  m.spib_refine_rounds = as_int(raw, "adaptive_model.spib_refine_rounds", m.spib_refine_rounds);
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

Potential potential_of(const std::string& name) {
  return potential_named(name).value_or(Potential::MullerBrown);  // the schema admits no other
}

std::optional<std::string> as_optional_string(const RawConfig& raw, const std::string& key) {
  const json& v = raw.value(key);
  if (!v.is_string()) return std::nullopt;
  return v.get<std::string>();
}

void build_gromacs(const RawConfig& raw, GromacsEngineConfig& g) {
  g.executable = as_string(raw, "engine.gromacs_executable");
  g.mdrun_ntmpi = as_int(raw, "engine.gromacs_mdrun_ntmpi", g.mdrun_ntmpi);
  if (const json& v = raw.value("engine.gromacs_mdrun_ntomp"); v.is_number_integer()) {
    g.mdrun_ntomp = v.get<int>();
  }
  g.mdrun_nb = as_optional_string(raw, "engine.gromacs_mdrun_nb");
  g.mdrun_pme = as_optional_string(raw, "engine.gromacs_mdrun_pme");
  g.mdrun_update = as_optional_string(raw, "engine.gromacs_mdrun_update");
  g.mdrun_bonded = as_optional_string(raw, "engine.gromacs_mdrun_bonded");
  g.mdrun_pin = as_optional_string(raw, "engine.gromacs_mdrun_pin");
  if (const json& v = raw.value("engine.gromacs_mdrun_extra_args"); v.is_array()) {
    g.mdrun_extra_args = v.get<std::vector<std::string>>();
  }
  g.grompp_maxwarn = as_int(raw, "engine.gromacs_grompp_maxwarn", g.grompp_maxwarn);
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

CampaignConfig build_config(const RawConfig& raw) {
  CampaignConfig c;
  // The rows bound to their members (key_row.h) fill themselves; the rest is built below.
  for (const KeySpec& key : all_keys()) {
    if (key.fill) key.fill(c, raw.value(key.dotted()));
  }
  apply_md_block(c.engine);
  c.outdir = as_string(raw, "outdir");
  if (const json& v = raw.value("random_seed"); v.is_number_integer()) {
    c.random_seed = v.get<std::uint64_t>();
  }
  if (const json& v = raw.value("iterations"); v.is_number_integer()) c.iterations = v.get<int>();
  c.n_bins = effective_n_bins(raw);
  c.min_values = as_doubles(raw.value("min_values"));
  c.max_values = as_doubles(raw.value("max_values"));
  c.space_mode = as_string(raw, "space_mode");
  LearnedSpaceConfig& l = c.learned;
  l.retrain_policy = as_string(raw, "retrain_policy") == "vamp_adaptive"
                         ? RetrainPolicyKind::VampAdaptive
                         : RetrainPolicyKind::Fixed;
  l.retrain_freq = as_int(raw, "retrain_freq", l.retrain_freq);
  l.vamp_retrain_tol = as_double(raw, "vamp_retrain_tol", l.vamp_retrain_tol);
  l.retrain_min_interval = as_int(raw, "retrain_min_interval", l.retrain_min_interval);
  if (const json& v = raw.value("retrain_max_interval"); v.is_number_integer()) {
    l.retrain_max_interval = v.get<int>();
  }
  if (const json& v = raw.value("aggregate_memory"); v.is_boolean())
    l.aggregate_memory = v.get<bool>();
  if (const json& v = raw.value("max_adaptive_memory_frames"); v.is_number_integer()) {
    l.max_adaptive_memory_frames = v.get<std::int64_t>();
  }
  l.lagtime = as_int(raw, "adaptive_model.lagtime", l.lagtime);
  build_model(raw, l.model);
  l.feature_type = as_string(raw, "adaptive_feature_type");
  l.sincos = as_string(raw, "adaptive_angle_encoding") == "sincos";
  l.feature_atoms = as_string(raw, "system.feature_selection");
  l.save_features = as_bool(raw, "save_features", l.save_features);
  FeatureSelectionConfig& fs = l.selection;
  fs.enabled = as_bool(raw, "feature_selection.enabled", fs.enabled);
  fs.greedy = as_string(raw, "feature_selection.method") != "all";
  fs.lagtime = as_int(raw, "feature_selection.lagtime", fs.lagtime);
  fs.cadence = as_int(raw, "feature_selection.cadence", fs.cadence);
  if (const json& v = raw.value("feature_selection.max_features"); v.is_number_integer()) {
    fs.max_features = v.get<int>();
  }
  if (const json& v = raw.value("feature_selection.dim"); v.is_number_integer()) {
    fs.dim = v.get<int>();
  }
  fs.min_gain = as_double(raw, "feature_selection.min_gain", fs.min_gain);
  if (const json& v = raw.value("feature_selection.candidate_feature_types"); v.is_array()) {
    for (const auto& t : v) fs.candidate_feature_types.push_back(t.get<std::string>());
  }
  c.checkpoint_freq = as_int(raw, "checkpoint_freq", c.checkpoint_freq);
  c.min_success_fraction = as_double(raw, "min_success_fraction", c.min_success_fraction);
  c.binning.scheme = as_string(raw, "binning.scheme");
  c.binning.n_fine = as_int(raw, "binning.n_fine", c.binning.n_fine);
  c.binning.smoothing = as_int(raw, "binning.smoothing", c.binning.smoothing);

  // system.start: one point becomes a one-element list, so consumers see a single shape.
  if (const json& start = raw.value("system.start"); start.is_array() && !start.empty()) {
    if (start[0].is_array()) {
      for (const auto& point : start) c.system.start.push_back(as_doubles(point));
    } else {
      c.system.start.push_back(as_doubles(start));
    }
  }

  c.engine.md_engine = as_string(raw, "engine.md_engine");
  if (const json& v = raw.value("engine.seed"); v.is_number_integer()) {
    c.engine.seed = v.get<std::uint64_t>();
  }
  BuiltinEngineConfig& b = c.engine.builtin;
  b.potential = potential_of(as_string(raw, "engine.potential"));
  b.integrator = as_string(raw, "engine.integrator") == "langevin" ? Integrator::Langevin
                                                                   : Integrator::Overdamped;
  b.kT = as_double(raw, "engine.kT", b.kT);
  b.friction = as_double(raw, "engine.friction", b.friction);
  b.mass = as_double(raw, "engine.mass", b.mass);
  b.synthetic_cost_ms = as_double(raw, "engine.synthetic_cost_ms", b.synthetic_cost_ms);
  b.synthetic_startup_ms = as_double(raw, "engine.synthetic_startup_ms", b.synthetic_startup_ms);
  // Always the particle dimension actually simulated (fixed by the potential unless harmonic).
  b.dimension = builtin_dimension(raw).value_or(as_int(raw, "engine.dimension", b.dimension));

  OpenMMEngineConfig& o = c.engine.openmm;
  o.platform_name = as_string(raw, "engine.platform_name");
  o.precision = as_string(raw, "engine.precision");
  o.reproducibility =
      reproducibility_named(as_string(raw, "engine.reproducibility")).value_or(o.reproducibility);
  o.equilibrate = as_bool(raw, "engine.equilibrate", o.equilibrate);
  c.engine.gromacs_include_dir = as_path(raw, "engine.gromacs_include_dir");
  build_gromacs(raw, c.engine.gromacs);
  if (const json& v = raw.value("engine.python"); v.is_string())
    c.engine.python = v.get<std::string>();
  c.engine.keep_walker_files = as_bool(raw, "engine.keep_walker_files", false);
  if (const json& v = raw.value("cvs"); v.is_array()) c.cvs = v;
  c.system.conf_file = as_path(raw, "system.conf_file");
  c.system.initial_trajectory = as_path(raw, "system.initial_trajectory");
  c.system.top_file = as_path(raw, "system.top_file");
  c.system.system_file = as_path(raw, "system.system_file");
  c.system.project_file = as_path(raw, "system.project_file");
  c.system.trajectory_topology_file = as_path(raw, "system.trajectory_topology_file");
  if (const json& v = raw.value("system.forcefield"); v.is_array()) {
    for (const auto& f : v) {
      if (f.is_string()) c.system.forcefield.push_back(f.get<std::string>());
    }
  }

  c.execution.backend = as_string(raw, "execution.backend");
  c.execution.persistent_workers =
      as_bool(raw, "execution.persistent_workers", c.execution.persistent_workers);
  if (const json& v = raw.value("execution.walker_timeout"); v.is_number()) {
    c.execution.walker_timeout = v.get<double>();
  }

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
  // engine.gpu_ids is Trails-MD's name for the same setting (both set: check_execution).
  for (const char* key : {"execution.devices", "engine.gpu_ids"}) {
    if (const json& v = raw.value(key); v.is_array()) {
      c.execution.devices = v.get<std::vector<int>>();
      c.execution.devices_key = key;
    }
  }
  c.execution.workers_per_device =  // auto: 0 (ExecutionConfig)
      raw.value("execution.workers_per_device") == "auto"
          ? 0
          : as_int(raw, "execution.workers_per_device", c.execution.workers_per_device);
  c.execution.binding_check = as_string(raw, "execution.binding_check");
  build_scheduler(raw, c.execution.scheduler);
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
