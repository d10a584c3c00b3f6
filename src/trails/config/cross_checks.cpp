#include "trails/config/cross_checks.h"

#include <algorithm>
#include <string>

#include "trails/config/convert.h"
#include "trails/config/schema.h"

namespace trails::config::detail {
namespace {

using json = nlohmann::json;

bool is_builtin(const RawConfig& raw) {
  return raw.present("engine.md_engine") && raw.usable("engine.md_engine") &&
         raw.value("engine.md_engine") == "builtin";
}

bool usable_list(const RawConfig& raw, const std::string& key) {
  return raw.usable(key) && raw.value(key).is_array();
}

Position element_or_value(const Entry& e, std::size_t i) {
  return i < e.element_at.size() ? e.element_at[i] : e.value_at;
}

std::string count(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

bool is_openmm(const RawConfig& raw) {
  const Entry& md = raw.at("engine.md_engine");
  return !md.present || (md.valid && md.value == "openmm");  // Trails-MD's default engine
}

}  // namespace

void check_engine(const RawConfig& raw, Problems& problems) {
  if (!raw.blocks.count("engine")) return;  // "missing required block" already said it
  const Entry& md = raw.at("engine.md_engine");
  if (md.present && md.valid && md.value != "builtin" && md.value != "openmm") {
    problems.add(md.value_at, "engine.md_engine",
                 "the " + md.value.get<std::string>() +
                     " engine is not available in this build of Trails yet; use "
                     "`engine.md_engine: openmm` or `engine.md_engine: builtin`");
  }
  if (md.present && !md.valid) return;  // a bad md_engine value: do not guess which was meant
  if (is_openmm(raw)) {
    const Entry& conf = raw.at("system.conf_file");
    if (conf.valid && conf.value.is_null()) {
      problems.add(md.present ? md.value_at : md.key_at, "system.conf_file",
                   std::string(md.present ? ""
                                          : "engine.md_engine is not set, so Trails-MD's "
                                            "default openmm applies; ") +
                       "the OpenMM engine needs a structure: set system.conf_file (.pdb, .gro, "
                       ".inpcrd) and system.top_file, system.forcefield or system.system_file "
                       "(or use `engine.md_engine: builtin`)");
    }
  }
  if (is_builtin(raw)) return;
  for (const auto& [path, e] : raw.entries) {
    if (e.present && e.spec->support == Support::BuiltinOnly) {
      problems.add(e.key_at, path,
                   "is a built-in engine key, only valid with "
                   "`engine.md_engine: builtin`; remove it");
    }
  }
}

namespace {

void check_n_bins(const RawConfig& raw, Problems& problems) {
  const Entry& top = raw.at("n_bins");
  const Entry& nested = raw.at("spawning.n_bins");
  if (top.present && top.valid && nested.present && nested.valid && !nested.value.is_null() &&
      nested.value != top.value) {
    problems.add(nested.value_at, "spawning.n_bins",
                 yaml_repr(nested.value) + " conflicts with the top-level n_bins " +
                     yaml_repr(top.value) + "; keep only the top-level n_bins");
  }
}

void check_bounds(const RawConfig& raw, Problems& problems) {
  if (!raw.usable("space_mode") || raw.value("space_mode") != "fixed") return;
  std::string nbins_key;
  const std::vector<int> n_bins = effective_n_bins(raw, &nbins_key);
  const bool nbins_ok = raw.usable(nbins_key);
  bool lengths_ok = nbins_ok;
  for (const char* key : {"min_values", "max_values"}) {
    const Entry& e = raw.at(key);
    if (!e.valid) {
      lengths_ok = false;
      continue;
    }
    if (e.value.is_null()) {
      problems.add(e.value_at, key,
                   "required in fixed space mode: give one " +
                       std::string(key[1] == 'i' ? "lower" : "upper") +
                       " bound per CV axis (n_bins has " + count(n_bins.size(), "axis", "axes") +
                       ")");
      lengths_ok = false;
    } else if (nbins_ok && e.value.size() != n_bins.size()) {
      problems.add(e.value_at, key,
                   "has " + count(e.value.size(), "value", "values") + " but " + nbins_key +
                       " has " + count(n_bins.size(), "entry", "entries") +
                       "; give one value per CV axis");
      lengths_ok = false;
    }
  }
  if (!lengths_ok || raw.value("min_values").size() != raw.value("max_values").size()) return;
  const Entry& lo = raw.at("min_values");
  const json& hi = raw.value("max_values");
  for (std::size_t i = 0; i < lo.value.size(); ++i) {
    const double a = lo.value[i].get<double>();
    const double b = hi[i].get<double>();
    if (!(a < b)) {
      problems.add(element_or_value(lo, i), "min_values[" + std::to_string(i) + "]",
                   format_number(a) + " must be less than max_values[" + std::to_string(i) + "] (" +
                       format_number(b) + ")");
    }
  }
}

void check_builtin_dimensions(const RawConfig& raw, Problems& problems) {
  if (!is_builtin(raw) || !raw.usable("engine.potential")) return;
  const std::string potential = raw.value("engine.potential").get<std::string>();
  const Entry& dimension = raw.at("engine.dimension");
  const std::optional<int> dim = builtin_dimension(raw);
  if (potential != "harmonic" && dimension.present && dimension.valid && dim &&
      dimension.value.get<int>() != *dim) {
    problems.add(dimension.value_at, "engine.dimension",
                 "only applies to potential: harmonic; " + potential + " is " +
                     std::to_string(*dim) + "-dimensional; remove the key");
  }
  if (!dim) return;
  std::string nbins_key;
  const std::vector<int> n_bins = effective_n_bins(raw, &nbins_key);
  const bool learned = raw.usable("space_mode") && raw.value("space_mode") != "fixed";
  if (learned && raw.usable(nbins_key) && static_cast<int>(n_bins.size()) > *dim) {
    const Entry& e = raw.at(nbins_key);
    problems.add(e.value_at, nbins_key,
                 "has " + count(n_bins.size(), "entry", "entries") +
                     " but a learned space of the built-in potential " + potential +
                     " can have at most " + std::to_string(*dim) +
                     " dimensions (one per particle coordinate); give at most " +
                     std::to_string(*dim) + " bin counts");
  }
  if (!learned && raw.usable(nbins_key) && static_cast<int>(n_bins.size()) != *dim) {
    const Entry& e = raw.at(nbins_key);
    problems.add(e.value_at, nbins_key,
                 "has " + count(n_bins.size(), "entry", "entries") +
                     " but the built-in potential " + potential + " is " + std::to_string(*dim) +
                     "-dimensional; a built-in run's CV space is the particle coordinates, so "
                     "give one bin count per coordinate");
  }
  const Entry& start = raw.at("system.start");
  if (!start.present || !start.valid || start.value.is_null()) return;
  const auto point_dim = [&](const json& point, const std::string& path, Position at) {
    if (static_cast<int>(point.size()) != *dim) {
      problems.add(at, path,
                   "has " + count(point.size(), "coordinate", "coordinates") +
                       " but the built-in potential " + potential + " is " + std::to_string(*dim) +
                       "-dimensional");
    }
  };
  if (!start.value[0].is_array()) {
    point_dim(start.value, "system.start", start.value_at);
    return;
  }
  if (raw.usable("spawning.walker")) {
    const int walkers = raw.value("spawning.walker").get<int>();
    if (static_cast<int>(start.value.size()) != walkers) {
      problems.add(start.value_at, "system.start",
                   "gives " + count(start.value.size(), "point", "points") +
                       " but spawning.walker is " + std::to_string(walkers) +
                       "; give one point for all walkers or exactly one per walker");
    }
  }
  for (std::size_t i = 0; i < start.value.size(); ++i) {
    point_dim(start.value[i], "system.start[" + std::to_string(i) + "]",
              element_or_value(start, i));
  }
}

void check_spawning(const RawConfig& raw, Problems& problems) {
  const Entry& mode = raw.at("spawning.search_mode");
  const Entry& target = raw.at("spawning.target");
  if (mode.valid && mode.value == "target" && target.valid) {
    std::string nbins_key;
    const std::vector<int> n_bins = effective_n_bins(raw, &nbins_key);
    if (target.value.is_null()) {
      problems.add(mode.value_at, "spawning.target",
                   "required when spawning.search_mode is target: give the target point in CV "
                   "space (" +
                       count(n_bins.size(), "coordinate", "coordinates") + ")");
    } else if (raw.usable(nbins_key) && target.value.size() != n_bins.size()) {
      problems.add(target.value_at, "spawning.target",
                   "has " + count(target.value.size(), "coordinate", "coordinates") +
                       " but the CV space has " + count(n_bins.size(), "dimension", "dimensions") +
                       " (" + nbins_key + ")");
    }
  }
  const Entry& step = raw.at("spawning.step");
  const Entry& stride = raw.at("spawning.stride");
  if (step.valid && stride.valid && step.value.get<int>() < stride.value.get<int>()) {
    problems.add(stride.value_at, "spawning.stride",
                 std::to_string(stride.value.get<int>()) + " exceeds spawning.step (" +
                     std::to_string(step.value.get<int>()) +
                     "); a walker records step/stride frames, so make step >= stride");
  }
}

// The Voronoi spawner (compat:voronoi-spawner) partitions a plane, and its resolution ladder
// starts at voronoi_clusters and climbs to voronoi_max_clusters.
void check_voronoi(const RawConfig& raw, Problems& problems) {
  const Entry& scheme = raw.at("spawning.spawn_scheme");
  if (!scheme.valid || scheme.value != "voronoi") return;
  std::string nbins_key;
  const std::vector<int> n_bins = effective_n_bins(raw, &nbins_key);
  if (raw.usable(nbins_key) && n_bins.size() != 2) {
    problems.add(scheme.value_at, "spawning.spawn_scheme",
                 "voronoi divides a 2-D CV space into cells but this one has " +
                     count(n_bins.size(), "dimension", "dimensions") + " (" + nbins_key +
                     "); use 2 CVs, or spawn_scheme density, lof or fps");
  }
  const Entry& cells = raw.at("spawning.voronoi_clusters");
  const Entry& cap = raw.at("spawning.voronoi_max_clusters");
  if (cells.valid && cap.valid && cells.value.get<int>() > cap.value.get<int>()) {
    problems.add(cells.present ? cells.value_at : cap.value_at,
                 cells.present ? "spawning.voronoi_clusters" : "spawning.voronoi_max_clusters",
                 "the Voronoi spawner starts with voronoi_clusters = " +
                     std::to_string(cells.value.get<int>()) +
                     " cells, more than its cap "
                     "voronoi_max_clusters = " +
                     std::to_string(cap.value.get<int>()) +
                     "; lower voronoi_clusters or raise voronoi_max_clusters");
  }
}

// msm.convergence_criteria is a free mapping in the table; its names and parameters are checked
// here (compat:convergence-monitor; those needing features not built are rejected by name).
void check_msm_criteria(const RawConfig& raw, Problems& problems) {
  const Entry& crit = raw.at("msm.convergence_criteria");
  if (!crit.present || !crit.valid || !crit.value.is_object()) return;
  const std::string key = "msm.convergence_criteria";
  for (const auto& [name, params] : crit.value.items()) {
    std::string path = key;
    path += ".";
    path += name;
    std::vector<std::string> allowed;
    if (name == "its" || name == "implied_timescales") {
      allowed = {"tol", "n", "n_timescales"};
    } else if (name == "vamp2") {
      allowed = {"tol"};
    } else if (name == "transition_matrix") {
      allowed = {"tol", "min_flux"};
    } else if (name == "stationary_distribution") {
      allowed = {"tol"};
      const Entry& m = raw.at("msm.n_metastable");
      if (!(m.present && m.valid && m.value.is_number_integer())) {
        problems.add(crit.value_at, path,
                     "compares PCCA+ metastable populations between builds, so it needs "
                     "msm.n_metastable (e.g. 2); set it or remove the criterion");
      }
    } else if (name == "statistical_error") {
      allowed = {"tol"};
      if (!(raw.usable("msm.estimator") && raw.value("msm.estimator") == "bayesian")) {
        problems.add(crit.value_at, path,
                     "uses the Bayesian standard deviation of the slowest timescale, so it needs "
                     "msm.estimator: bayesian; set it or remove the criterion");
      }
    } else {
      problems.add(crit.value_at, path,
                   "unknown criterion; known: implied_timescales (its), vamp2, transition_matrix, "
                   "stationary_distribution, statistical_error");
      continue;
    }
    if (params.is_null()) continue;  // the criterion with its default parameters
    if (!params.is_object()) {
      problems.add(crit.value_at, path, "must be a mapping of parameters (e.g. {tol: 0.1})");
      continue;
    }
    for (const auto& [p, v] : params.items()) {
      std::string param_path = path;
      param_path += ".";
      param_path += p;
      if (std::find(allowed.begin(), allowed.end(), p) == allowed.end()) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        problems.add(crit.value_at, param_path, "unknown parameter; known: " + list);
      } else if (p == "n" || p == "n_timescales") {
        if (!v.is_number_integer() || v.get<long long>() < 1) {
          problems.add(crit.value_at, param_path, "must be an integer >= 1");
        }
      } else if (!v.is_number() || !(v.get<double>() > 0)) {
        problems.add(crit.value_at, param_path, "must be a number > 0");
      }
    }
  }
}

void check_msm(const RawConfig& raw, Problems& problems) {
  check_msm_criteria(raw, problems);
  // PCCA+ splits the active microstates into n_metastable sets: at least two, fewer than states.
  const Entry& meta = raw.at("msm.n_metastable");
  if (meta.present && meta.valid && meta.value.is_number_integer()) {
    const int m = meta.value.get<int>();
    if (m < 2) {
      problems.add(meta.value_at, "msm.n_metastable",
                   "PCCA+ needs at least 2 metastable sets, got " + std::to_string(m) +
                       "; use 2 or more, or null for no PCCA+");
    } else if (raw.usable("msm.n_microstates") && m >= raw.value("msm.n_microstates").get<int>()) {
      // (an invalid n_microstates has its own problem; no comparison against a guess)
      problems.add(meta.value_at, "msm.n_metastable",
                   std::to_string(m) + " sets need more microstates than msm.n_microstates (" +
                       std::to_string(raw.value("msm.n_microstates").get<int>()) +
                       "); lower n_metastable or raise n_microstates");
    }
  }
  const Entry& enabled = raw.at("msm.enabled");
  if (!enabled.valid || enabled.value != true) return;
  if (!raw.usable("spawning.step") || !raw.usable("spawning.stride")) return;
  // A walker segment holds step/stride frames and transitions are only counted inside one.
  const int fpw = raw.value("spawning.step").get<int>() / raw.value("spawning.stride").get<int>();
  const Entry& lag = raw.at("msm.lagtime");
  if (lag.present && lag.valid && lag.value.get<int>() >= fpw) {
    problems.add(lag.value_at, "msm.lagtime",
                 std::to_string(lag.value.get<int>()) + " frames is not shorter than one walker " +
                     "segment (spawning.step / spawning.stride = " + std::to_string(fpw) +
                     " frames), so no transition could be counted; use a lag below " +
                     std::to_string(fpw));
  }
  const Entry& lags = raw.at("msm.lagtimes");
  if (lags.present && lags.valid && lags.value.is_array()) {
    for (std::size_t i = 0; i < lags.value.size(); ++i) {
      if (lags.value[i].get<int>() >= fpw) {
        problems.add(element_or_value(lags, i), "msm.lagtimes[" + std::to_string(i) + "]",
                     std::to_string(lags.value[i].get<int>()) +
                         " frames is not shorter than one walker segment (" + std::to_string(fpw) +
                         " frames)");
      }
    }
  }
}

}  // namespace

std::vector<int> effective_n_bins(const RawConfig& raw, std::string* source) {
  std::string key = "n_bins";
  if (!raw.present("n_bins") && raw.present("spawning.n_bins") &&
      !raw.value("spawning.n_bins").is_null()) {
    key = "spawning.n_bins";
  }
  if (source) *source = key;
  const json& v = usable_list(raw, key) ? raw.value(key) : raw.at("n_bins").spec->default_value;
  return v.get<std::vector<int>>();
}

std::optional<int> builtin_dimension(const RawConfig& raw) {
  if (!is_builtin(raw) || !raw.usable("engine.potential")) return std::nullopt;
  const std::string potential = raw.value("engine.potential").get<std::string>();
  if (potential == "double_well" || potential == "biased_walk") return 1;
  if (potential == "muller_brown" || potential == "three_well") return 2;
  if (potential == "harmonic" && raw.usable("engine.dimension")) {
    return raw.value("engine.dimension").get<int>();
  }
  return std::nullopt;
}

namespace {

// Learned spaces: the learned dimension is len(n_bins); TICA needs lagged pairs in a segment.
void check_learned_space(const RawConfig& raw, Problems& problems) {
  if (!raw.usable("space_mode") || raw.value("space_mode") == "fixed") return;
  std::string nbins_key;
  const std::vector<int> n_bins = effective_n_bins(raw, &nbins_key);
  const Entry& latent = raw.at("adaptive_model.latent_dim");
  if (latent.present && latent.valid && raw.usable(nbins_key) &&
      latent.value.get<int>() != static_cast<int>(n_bins.size())) {
    problems.add(
        latent.value_at, "adaptive_model.latent_dim",
        std::to_string(latent.value.get<int>()) + " differs from the " +
            count(n_bins.size(), "axis", "axes") + " of " + nbins_key +
            "; the learned dimension is len(n_bins): remove latent_dim or make them equal");
  }
  const Entry& lag = raw.at("adaptive_model.lagtime");
  if (raw.usable("spawning.step") && raw.usable("spawning.stride") && lag.valid &&
      raw.value("space_mode") == "tica") {
    const int frames = raw.value("spawning.step").get<int>() /
                       std::max(1, raw.value("spawning.stride").get<int>());
    const int tau = lag.value.get<int>();
    if (frames <= tau) {
      problems.add(lag.present ? lag.value_at : raw.at("spawning.step").value_at,
                   "adaptive_model.lagtime",
                   std::to_string(tau) + " frames is not shorter than a walker segment (" +
                       std::to_string(frames) +
                       " frames = step / stride), so TICA gets no time-lagged pairs; lower the "
                       "lagtime or raise spawning.step");
    }
  }
}

// system.project_file gives the fixed CVs of a molecular run: not with the built-in engine
// (its CVs are its coordinates), not next to a cvs: block, not as a learned space's side output.
void check_project_file(const RawConfig& raw, Problems& problems) {
  const Entry& pf = raw.at("system.project_file");
  if (!pf.present || !pf.valid || pf.value.is_null()) return;
  if (is_builtin(raw)) {
    problems.add(pf.value_at, "system.project_file",
                 "needs a molecular engine (engine.md_engine: openmm); the built-in engine's CVs "
                 "are its coordinates");
    return;
  }
  const Entry& cvs = raw.at("cvs");
  if (cvs.present && cvs.valid && !cvs.value.is_null()) {
    problems.add(cvs.key_at, "system.project_file",
                 "is set together with cvs; both define the fixed CVs, keep one of them");
  }
}

// Learned-space features (compat:learned-features, compat:vamp-column-selection): molecular feature
// keys need a molecular engine, candidate types are feature types, and the selection lag must fit
// in a walker segment.
void check_learned_features(const RawConfig& raw, Problems& problems) {
  if (is_builtin(raw)) {
    for (const char* key :
         {"adaptive_feature_type", "adaptive_angle_encoding", "system.feature_selection"}) {
      const Entry& e = raw.at(key);
      if (!e.present || !e.valid || e.value == e.spec->default_value) continue;  // Trails-MD files
      problems.add(e.value_at, key,
                   "only applies to molecular engines (engine.md_engine: openmm); the built-in "
                   "engine's learned-space features are its particle coordinates; remove the key "
                   "or set it to its default (" +
                       e.spec->default_value.get<std::string>() + ")");
    }
    const Entry& c = raw.at("feature_selection.candidate_feature_types");
    if (c.present && c.valid && c.value.is_array() && !c.value.empty()) {
      problems.add(c.value_at, "feature_selection.candidate_feature_types",
                   "feature-type ranking needs a molecular engine (engine.md_engine: openmm); "
                   "the built-in engine has one feature type, its particle coordinates; remove "
                   "the key or set it to []");
    }
  }
  const Entry& c = raw.at("feature_selection.candidate_feature_types");
  if (c.present && c.valid && c.value.is_array()) {
    std::vector<std::string> seen;
    for (std::size_t i = 0; i < c.value.size(); ++i) {
      const std::string t = c.value[i].get<std::string>();
      const std::string path =
          "feature_selection.candidate_feature_types[" + std::to_string(i) + "]";
      if (t != "distances" && t != "fitted_coords" && t != "phi_psi") {
        problems.add(
            element_or_value(c, i), path,
            "\"" + t + "\" is not a feature type; use distances, fitted_coords or phi_psi");
      } else if (std::find(seen.begin(), seen.end(), t) != seen.end()) {
        problems.add(element_or_value(c, i), path, t + " is listed twice; list each type once");
      }
      seen.push_back(t);
    }
  }
  if (!raw.usable("space_mode") || raw.value("space_mode") == "fixed") return;
  const Entry& on = raw.at("feature_selection.enabled");
  if (!(on.valid && on.value.is_boolean() && on.value.get<bool>())) return;
  std::string nbins_key;
  const std::vector<int> n_bins = effective_n_bins(raw, &nbins_key);
  const Entry& maxf = raw.at("feature_selection.max_features");
  if (maxf.present && maxf.valid && maxf.value.is_number_integer() && raw.usable(nbins_key) &&
      maxf.value.get<int>() < static_cast<int>(n_bins.size())) {
    problems.add(maxf.value_at, "feature_selection.max_features",
                 std::to_string(maxf.value.get<int>()) + " is fewer than the " +
                     count(n_bins.size(), "learned dimension", "learned dimensions") + " of " +
                     nbins_key + "; the model needs at least one feature column per dimension");
  }
  const Entry& lag = raw.at("feature_selection.lagtime");
  if (raw.usable("spawning.step") && raw.usable("spawning.stride") && lag.valid) {
    const int frames = raw.value("spawning.step").get<int>() /
                       std::max(1, raw.value("spawning.stride").get<int>());
    const int tau = lag.value.get<int>();
    if (frames <= tau) {
      problems.add(lag.present ? lag.value_at : on.value_at, "feature_selection.lagtime",
                   std::to_string(tau) + " frames is not shorter than a walker segment (" +
                       std::to_string(frames) +
                       " frames = step / stride), so VAMP-2 feature selection gets no "
                       "time-lagged pairs; lower feature_selection.lagtime or raise spawning.step");
    }
  }
}

// Sizes a run could not start with: Trails allocates per walker and starts one thread per worker
// (docs/reliability.md, "What check verifies before a run"). max_workers beyond walker is harmless
// (build_config caps it), so only the effective worker count is bounded.
void check_sizes(const RawConfig& raw, Problems& problems) {
  const Entry& walker = raw.at("spawning.walker");
  if (walker.present && walker.valid && walker.value.get<int>() > kMaxWalkers) {
    problems.add(walker.value_at, "spawning.walker",
                 std::to_string(walker.value.get<int>()) + " walkers is more than Trails runs in " +
                     "one iteration (at most " + std::to_string(kMaxWalkers) +
                     "); lower spawning.walker");
    return;
  }
  const Entry& workers = raw.at("spawning.max_workers");
  if (!workers.present || !workers.valid || !raw.usable("spawning.walker")) return;
  const int effective = std::min(workers.value.get<int>(), raw.value("spawning.walker").get<int>());
  if (effective > kMaxWorkers) {
    problems.add(workers.value_at, "spawning.max_workers",
                 std::to_string(workers.value.get<int>()) + " would start " +
                     std::to_string(effective) + " worker threads (one per worker, at most one " +
                     "per walker); use at most " + std::to_string(kMaxWorkers));
  }
}

// A thread cannot be killed, so only a worker process can be ended for running too long
// (docs/execution.md, "Persistent worker processes").
void check_walker_timeout(const RawConfig& raw, Problems& problems) {
  const Entry& timeout = raw.at("execution.walker_timeout");
  if (!timeout.present || !timeout.valid || timeout.value.is_null()) return;
  // With MPI ranks the rule is another (execution_checks.cpp).
  if (raw.usable("execution.backend") && raw.value("execution.backend") == "mpi") return;
  if (!raw.usable("execution.persistent_workers") ||
      raw.value("execution.persistent_workers").get<bool>()) {
    return;
  }
  problems.add(timeout.value_at, "execution.walker_timeout",
               "needs execution.persistent_workers: true (a walker running on a thread of "
               "the driver cannot be stopped); set execution.persistent_workers: true or remove "
               "execution.walker_timeout");
}

}  // namespace

void check_cross_fields(const RawConfig& raw, Problems& problems) {
  check_sizes(raw, problems);
  check_walker_timeout(raw, problems);
  check_learned_space(raw, problems);
  check_project_file(raw, problems);
  check_learned_features(raw, problems);
  check_engine(raw, problems);
  check_n_bins(raw, problems);
  check_bounds(raw, problems);
  check_builtin_dimensions(raw, problems);
  check_spawning(raw, problems);
  check_voronoi(raw, problems);
  check_msm(raw, problems);
  check_output(raw, problems);
  check_execution(raw, problems);
}

}  // namespace trails::config::detail
