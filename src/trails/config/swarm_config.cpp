// load_swarm_config(): the `pathgennie:` and `convergence:` blocks against their own key table
// (swarm_reader.h); `engine:`, `system:`, `cvs:` and `execution:` through the campaign key table
// (so they are read exactly as in a campaign, with the same messages), then the swarm's options and
// their cross-field rules, and the configuration's JSON records.
#include "trails/config/swarm_config.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "trails/config/config_text.h"
#include "trails/config/convert.h"
#include "trails/config/cross_checks.h"
#include "trails/config/engines/engine_module.h"
#include "trails/config/execution_spec.h"
#include "trails/config/problems.h"
#include "trails/config/reader.h"
#include "trails/config/scalar.h"
#include "trails/config/schema.h"
#include "trails/config/swarm_reader.h"

namespace trails::config {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using detail::Position;
using detail::Problems;
using Value = detail::SwarmReader::Value;
using detail::SwarmReader;

std::optional<int> int_of(const Value& v) {
  if (v.value.is_number_integer()) return v.value.get<int>();
  return std::nullopt;
}

// The profiles, applied under explicit keys: PathGennie's `discovery` (τ1 2, τ2 8, N 15, σ 0.1)
// and Trails' `sampling` (τ1 5, τ2 10, N 16, σ 0.5), whose values PathGennie does not document
// (docs/swarm.md, "Profiles", gives the reasoning).
void apply_profile(const SwarmReader& r, SwarmOptions& o) {
  const Value& profile = r.at("pathgennie.profile");
  if (!profile.value.is_string()) return;
  o.profile = profile.value.get<std::string>();
  const bool sampling = *o.profile == "sampling";
  if (!r.at("pathgennie.tau1_steps").present) o.tau1_steps = sampling ? 5 : 2;
  if (!r.at("pathgennie.tau2_steps").present) o.tau2_steps = sampling ? 10 : 8;
  if (!r.at("pathgennie.max_trial").present) o.max_trial = sampling ? 16 : 15;
  if (!r.at("pathgennie.sigma").present) o.sigma = sampling ? 0.5 : 0.1;
}

// convergence.cv_at_most / cv_at_least: a mapping of CV name → finite bound.
std::map<std::string, double> cv_bounds(const SwarmReader& r, const char* key, Problems& problems) {
  std::map<std::string, double> out;
  const Value& v = r.at(key);
  if (!v.value.is_object()) return out;
  for (const auto& [name, bound] : v.value.items()) {
    if (!bound.is_number() || !std::isfinite(bound.get<double>())) {
      problems.add(v.at, std::string(key) + "." + name,
                   "must be a number (the bound on CV '" + name + "'), got " + bound.dump());
      continue;
    }
    out[name] = bound.get<double>();
  }
  if (v.value.empty()) {
    problems.add(v.at, key, "is empty; give {CV name: bound, ...} or remove it");
  }
  return out;
}

// The unfold mode's keys: weights required there, and used nowhere else.
void check_unfold(const SwarmReader& r, const SwarmOptions& o, Problems& problems) {
  const Value& weights = r.at("pathgennie.unfold_weights");
  const bool unfold = o.probing == Probing::Unfold;
  if (unfold && !weights.present) {
    problems.add(r.at("pathgennie.mode").at, "pathgennie.unfold_weights",
                 "unfold mode needs one weight per CV for its score s = sum w_i (xi_i - xi0_i) "
                 "(sign: the direction that unfolds; size: 1 / the CV's scale), e.g. [10.0, "
                 "-1.0] for cvs [RMSD in nm, Q]");
  }
  for (const char* k : {"unfold_weights", "unfold_phase_cycles"}) {
    const std::string path = std::string("pathgennie.") + k;
    if (!unfold && r.at(path).present) {
      problems.add(r.at(path).at, path, "applies to mode: unfold only; remove it");
    }
  }
  if (unfold && r.at("pathgennie.escape_metric").present &&
      o.escape_metric != EscapeMetric::DistanceFromStart) {
    problems.add(r.at("pathgennie.escape_metric").at, "pathgennie.escape_metric",
                 "unfold mode measures the weighted distance from the start; remove "
                 "escape_metric");
  }
}

// The options' cross-field rules: devices listed once, the keys a profile does not give, and
// the keys that belong to the other mode.
void check_options(const SwarmReader& r, const SwarmOptions& o, Problems& problems) {
  std::set<int> unique(o.devices.begin(), o.devices.end());
  if (unique.size() != o.devices.size()) {
    problems.add(r.at("pathgennie.devices").at, "pathgennie.devices",
                 "lists a device twice; give each device index once (use workers_per_device "
                 "for several segments per device)");
  }
  for (const char* k : {"tau1_steps", "tau2_steps", "max_trial", "max_cycle"}) {
    const std::string path = std::string("pathgennie.") + k;
    const bool set = std::string(k) == "max_cycle" || !o.profile ? r.at(path).present : true;
    if (!set) {
      problems.add(
          Position{}, path,
          "required; set pathgennie." + std::string(k) +
              (std::string(k) == "max_cycle" ? "" : " (or choose profile: discovery or sampling)"));
    }
  }
  const Value& stride = r.at("pathgennie.subframe_stride");
  if (stride.present && !o.save_subframes) {
    problems.add(stride.at, "pathgennie.subframe_stride",
                 "applies only with save_subframes: true; set that or remove the stride");
  }
  if (o.save_subframes &&
      (o.tau1_steps % o.subframe_stride != 0 || o.tau2_steps % o.subframe_stride != 0)) {
    problems.add(stride.at, "pathgennie.subframe_stride",
                 "must divide tau1_steps (" + std::to_string(o.tau1_steps) + ") and tau2_steps (" +
                     std::to_string(o.tau2_steps) +
                     "), so that every anchor is a subframe; choose a common divisor");
  }
  const Value& target = r.at("pathgennie.target_projection");
  if (o.mode == SwarmMode::Target && !target.present) {
    problems.add(r.at("pathgennie.mode").at, "pathgennie.target_projection",
                 "target and fold modes need the target point in CV space: set "
                 "pathgennie.target_projection: [ξ1, ξ2, ...]");
  }
}

// Keys of the other mode, kept when a config switches modes: accepted with a note naming the key
// and why it has no effect, as a campaign does with keys of features it does not use
// (docs/swarm.md, "Keys of the other mode"); their values are dropped so that the run's
// result-relevant record does not depend on them.
void note_other_mode_keys(const SwarmReader& r, const std::string& file, SwarmOptions& o,
                          std::vector<std::string>& notes) {
  const auto note = [&](const char* key, const std::string& why) {
    notes.push_back(located(file, r.at(key).at, key, "has no effect: " + why));
  };
  const std::string mode = mode_name(o);
  if (o.mode == SwarmMode::Escape) {
    if (r.at("pathgennie.target_projection").present) {
      note("pathgennie.target_projection",
           "mode " + mode +
               " measures progress away from the start, not towards a target point (target "
               "and fold modes use it)");
      o.target_projection.clear();
    }
    if (r.at("convergence.distance_to_target").present) {
      note("convergence.distance_to_target",
           "mode " + mode +
               " has no target point; its chains converge by convergence.metric_at_least "
               "(or cv_at_most / cv_at_least)");
      o.distance_to_target.reset();
    }
  } else if (r.at("convergence.metric_at_least").present) {
    note("convergence.metric_at_least",
         "mode " + mode +
             " converges by the distance to pathgennie.target_projection "
             "(convergence.distance_to_target), not by a progress value");
    o.metric_at_least.reset();
  }
}

SwarmOptions build_options(const SwarmReader& r, Problems& problems) {
  SwarmOptions o;
  const auto& v = [&](const char* k) -> const json& { return r.at(k).value; };
  const std::string mode =
      v("pathgennie.mode").is_string() ? v("pathgennie.mode").get<std::string>() : "escape";
  o.mode = mode == "target" || mode == "fold" ? SwarmMode::Target : SwarmMode::Escape;
  o.probing = mode == "unbind"   ? Probing::Unbind
              : mode == "fold"   ? Probing::Fold
              : mode == "unfold" ? Probing::Unfold
                                 : Probing::None;
  o.probe_batch = int_of(r.at("pathgennie.probe_batch")).value_or(0);
  if (o.probing == Probing::None && r.at("pathgennie.probe_batch").present) {
    problems.add(r.at("pathgennie.probe_batch").at, "pathgennie.probe_batch",
                 "applies to the legacy modes (mode: unbind, fold or unfold); remove it");
  }
  o.tau1_steps = int_of(r.at("pathgennie.tau1_steps")).value_or(0);
  o.tau2_steps = int_of(r.at("pathgennie.tau2_steps")).value_or(0);
  o.max_trial = int_of(r.at("pathgennie.max_trial")).value_or(0);
  o.max_cycle = int_of(r.at("pathgennie.max_cycle")).value_or(0);
  if (v("pathgennie.sigma").is_number()) o.sigma = v("pathgennie.sigma").get<double>();
  if (v("pathgennie.temperature").is_number()) {
    o.temperature = v("pathgennie.temperature").get<double>();
  }
  o.save_freq = int_of(r.at("pathgennie.save_freq")).value_or(10);
  o.save_subframes = v("pathgennie.save_subframes") == true;
  o.subframe_stride = int_of(r.at("pathgennie.subframe_stride")).value_or(1);
  if (v("pathgennie.target_projection").is_array()) {
    o.target_projection = v("pathgennie.target_projection").get<std::vector<double>>();
  }
  o.escape_metric =
      v("pathgennie.escape_metric") == "cv0" ? EscapeMetric::Cv0 : EscapeMetric::DistanceFromStart;
  o.reject_worse_tau2 = v("pathgennie.reject_worse_tau2") == true;
  o.reject_worse_anchor = v("pathgennie.reject_worse_anchor") == true;
  if (v("pathgennie.devices").is_array()) {
    o.devices = v("pathgennie.devices").get<std::vector<int>>();
  }
  if (v("pathgennie.seed").is_number_integer()) o.seed = v("pathgennie.seed").get<std::uint64_t>();
  o.paths = int_of(r.at("pathgennie.paths")).value_or(1);
  if (static_cast<std::int64_t>(o.paths) * o.max_trial > detail::kMaxSwarmTrialsPerCycle) {
    problems.add(r.at("pathgennie.paths").present ? r.at("pathgennie.paths").at
                                                  : r.at("pathgennie.max_trial").at,
                 "pathgennie.paths",
                 std::to_string(o.paths) + " paths × " + std::to_string(o.max_trial) +
                     " trials (pathgennie.max_trial) queue more trials per cycle than Trails runs "
                     "(at most " +
                     std::to_string(detail::kMaxSwarmTrialsPerCycle) +
                     "); lower pathgennie.paths or pathgennie.max_trial");
  }
  o.projection = r.projection();
  o.learned_projection = r.learned_projection();
  o.projection_periods = r.projection_periods();
  o.convergence_function = r.convergence_function();
  if (v("convergence.distance_to_target").is_number()) {
    o.distance_to_target = v("convergence.distance_to_target").get<double>();
  }
  if (v("convergence.metric_at_least").is_number()) {
    o.metric_at_least = v("convergence.metric_at_least").get<double>();
  }
  if (v("pathgennie.unfold_weights").is_array()) {
    o.unfold_weights = v("pathgennie.unfold_weights").get<std::vector<double>>();
  }
  o.unfold_phase_cycles = int_of(r.at("pathgennie.unfold_phase_cycles")).value_or(1000);
  o.cv_at_most = cv_bounds(r, "convergence.cv_at_most", problems);
  o.cv_at_least = cv_bounds(r, "convergence.cv_at_least", problems);
  o.min_cycles = int_of(r.at("convergence.min_cycles")).value_or(0);
  o.stall_cycles = int_of(r.at("convergence.stall_cycles"));
  o.stall_tolerance = v("convergence.stall_tolerance").get<double>();
  o.stagnation_window = int_of(r.at("convergence.stagnation_window"));
  o.stagnation_tolerance = v("convergence.stagnation_tolerance").get<double>();
  apply_profile(r, o);
  check_unfold(r, o, problems);

  // workers_per_device, or its legacy alias tau1_workers (not both).
  const Value& wpd = r.at("pathgennie.workers_per_device");
  const Value& alias = r.at("pathgennie.tau1_workers");
  if (wpd.present && alias.present) {
    problems.add(alias.at, "pathgennie.tau1_workers",
                 "is PathGennie's old name of pathgennie.workers_per_device, which is also set; "
                 "keep only workers_per_device");
  }
  o.workers_per_device = int_of(wpd).value_or(int_of(alias).value_or(1));
  check_options(r, o, problems);
  return o;
}

// Start points against the chains and the built-in potential; the temperature against the engine.
// PathGennie's Python functions take atom coordinates: molecular engines only, and the CVs come
// from either `projection:` or `cvs:`.
void check_python_functions(const detail::RawConfig& raw, const SwarmOptions& o,
                            Problems& problems) {
  const bool builtin = detail::builtin_dimension(raw).has_value();
  for (const auto* f : {&o.projection, &o.convergence_function}) {
    if (*f && builtin) {
      problems.add(raw.at("engine.md_engine").value_at, (*f)->block,
                   "a Python " + (*f)->block +
                       " function takes atom coordinates (Å), but the built-in engine's "
                       "state is a point of its potential; use the declarative keys");
    }
  }
  const detail::Entry& cvs = raw.at("cvs");
  if (o.learned_projection && cvs.present) {
    problems.add(cvs.key_at, "cvs",
                 "the CVs are given twice: by projection.model (a learned model) and by cvs:; "
                 "keep one");
  }
  if (o.projection && cvs.present) {
    problems.add(cvs.key_at, "cvs",
                 "the CVs are given twice: by projection: (PathGennie's Python function) and by "
                 "cvs:; keep one");
  }
}

void check_md(const detail::RawConfig& raw, const SwarmReader& r, SwarmOptions& o,
              MdSystemConfig& md, Problems& problems) {
  const bool builtin = detail::is_builtin(raw);
  const Value& temperature = r.at("pathgennie.temperature");
  if (builtin && temperature.present) {
    problems.add(temperature.at, "pathgennie.temperature",
                 "the built-in engine's temperature is engine.kT (reduced units); remove "
                 "pathgennie.temperature");
  }
  if (!builtin && o.temperature) {
    const detail::Entry& engine_t = raw.at("engine.temperature");
    // Given alone it sets both; beside a different engine.temperature (the thermostat's), it
    // is the temperature of the trials' velocity draws only (docs/swarm.md, "Temperatures").
    if (engine_t.present && engine_t.valid && engine_t.value.get<double>() != *o.temperature) {
      md.engine.openmm.velocity_temperature = *o.temperature;
    } else {
      md.engine.md.temperature = *o.temperature;
      detail::apply_md_block(md.engine);
    }
  }
  const detail::Entry& start = raw.at("system.start");
  if (start.present && start.valid && start.value.is_array() && !start.value.empty()) {
    const bool many = start.value[0].is_array();
    const std::size_t points = many ? start.value.size() : 1;
    if (many && static_cast<int>(points) != o.paths) {
      problems.add(start.value_at, "system.start",
                   "gives " + std::to_string(points) + " points but pathgennie.paths is " +
                       std::to_string(o.paths) +
                       "; give one point for every chain or exactly one per chain");
    }
    const std::optional<int> dim = detail::builtin_dimension(raw);
    const json first = many ? start.value[0] : start.value;
    if (dim && static_cast<int>(first.size()) != *dim) {
      problems.add(start.value_at, "system.start",
                   "has " + std::to_string(first.size()) +
                       " coordinates but the built-in potential is " + std::to_string(*dim) +
                       "-dimensional");
    }
  }
  check_python_functions(raw, o, problems);
  const std::optional<int> dim = detail::builtin_dimension(raw);
  const Value& target = r.at("pathgennie.target_projection");
  if (dim && target.present && o.mode == SwarmMode::Target &&
      static_cast<int>(o.target_projection.size()) != *dim) {
    problems.add(target.at, "pathgennie.target_projection",
                 "has " + std::to_string(o.target_projection.size()) +
                     " values but a built-in run's CVs are its " + std::to_string(*dim) +
                     " coordinates; give one value per coordinate");
  }
}

// A swarm runs on threads, device pools, worker processes and MPI ranks; not on scheduler
// arrays, by decision (docs/execution.md, "The swarm and the backends").
void check_swarm_execution(const detail::RawConfig& raw, Problems& problems) {
  detail::check_execution(raw, problems);
  if (!raw.usable("execution.backend")) return;
  const std::string backend = raw.value("execution.backend").get<std::string>();
  if (is_scheduler(execution_backend_of(backend))) {
    problems.add(raw.at("execution.backend").value_at, "execution.backend",
                 "a swarm does not run on " + backend +
                     " arrays: a cycle's trials are too short to wait for a submission each; "
                     "use local or mpi, or run `trails swarm` inside one allocation (a job "
                     "script: docs/execution.md, \"The swarm and the backends\")");
  }
}

}  // namespace

bool is_swarm_config(const fs::path& file) {
  Problems ignored(file.string());
  const std::optional<YAML::Node> root =
      detail::read_config_document(file, detail::absolute_config_path(file), ignored);
  if (!root || !root->IsMap()) return false;
  const YAML::Node& map = *root;
  return static_cast<bool>(map["pathgennie"]);
}

SwarmConfig load_swarm_config(const fs::path& file) {
  Problems problems(file.string());
  const fs::path absolute = detail::absolute_config_path(file);
  const std::optional<YAML::Node> root = detail::read_config_document(file, absolute, problems);
  if (!root) problems.throw_if_any();
  if (!root->IsMap()) {
    problems.add(detail::position_of(root->Mark()), "",
                 "a swarm config file must be a mapping of keys (key: value), got " +
                     detail::describe(*root));
    problems.throw_if_any();
  }
  SwarmReader reader(absolute.parent_path(), file.string(), problems);
  const YAML::Node md_document = reader.read(*root);
  const detail::RawConfig raw =
      detail::read_document(md_document, absolute.parent_path(), problems);
  detail::check_engine(raw, problems);
  check_swarm_execution(raw, problems);

  SwarmConfig config;
  config.config_file = absolute;
  config.workdir = reader.at("workdir").value.get<std::string>();
  detail::build_md_system(raw, config.md);
  config.notes = detail::format_notes(raw, file.string());
  config.swarm = build_options(reader, problems);
  note_other_mode_keys(reader, file.string(), config.swarm, config.notes);
  config.md.random_seed = config.swarm.seed;
  check_md(raw, reader, config.swarm, config.md, problems);
  problems.throw_if_any();
  return config;
}

std::string mode_name(const SwarmOptions& o) {
  if (o.probing == Probing::Unbind) return "unbind";
  if (o.probing == Probing::Fold) return "fold";
  if (o.probing == Probing::Unfold) return "unfold";
  return o.mode == SwarmMode::Target ? "target" : "escape";
}

json SwarmConfig::result_relevant_json() const {
  const SwarmOptions& o = swarm;
  json p;
  p["mode"] = mode_name(o);
  p["tau1_steps"] = o.tau1_steps;
  p["tau2_steps"] = o.tau2_steps;
  p["max_trial"] = o.max_trial;
  p["sigma"] = o.sigma;
  p["save_freq"] = o.save_freq;
  p["target_projection"] = o.target_projection;
  p["escape_metric"] = o.escape_metric == EscapeMetric::Cv0 ? "cv0" : "distance_from_start";
  p["reject_worse_tau2"] = o.reject_worse_tau2;
  p["reject_worse_anchor"] = o.reject_worse_anchor;
  p["seed"] = o.seed;
  p["paths"] = o.paths;
  p["temperature"] = o.temperature ? json(*o.temperature) : json(nullptr);
  if (o.probing == Probing::Unfold) {
    p["unfold_weights"] = o.unfold_weights;
    p["unfold_phase_cycles"] = o.unfold_phase_cycles;
  }
  json c;
  c["distance_to_target"] = o.distance_to_target ? json(*o.distance_to_target) : json(nullptr);
  c["metric_at_least"] = o.metric_at_least ? json(*o.metric_at_least) : json(nullptr);
  c["cv_at_most"] = o.cv_at_most;
  c["cv_at_least"] = o.cv_at_least;
  c["min_cycles"] = o.min_cycles;
  const auto function_json = [](const std::optional<PythonFunction>& f) {
    if (!f) return json(nullptr);
    return json{{"module", f->module.string()}, {"function", f->function}, {"kwargs", f->kwargs}};
  };
  c["function"] = function_json(o.convergence_function);
  p["projection"] = function_json(o.projection);
  if (o.projection) p["projection"]["periodic"] = o.projection_periods;
  if (o.learned_projection) {
    // The model itself (its run, resolved iteration and digest) joins when the run opens
    // (swarm/learned_projection.h), so projection.iteration may pin the model a swarm began with.
    p["projection"] = {{"model", o.learned_projection->run_dir.string()}};
  }
  c["stall_cycles"] = o.stall_cycles ? json(*o.stall_cycles) : json(nullptr);
  c["stall_tolerance"] = o.stall_tolerance;
  c["stagnation_window"] = o.stagnation_window ? json(*o.stagnation_window) : json(nullptr);
  c["stagnation_tolerance"] = o.stagnation_tolerance;
  json base;
  md_system_values(md, /*all=*/false, base);
  json j;
  j["pathgennie"] = p;
  j["convergence"] = c;
  j["engine"] = base.at("engine");
  j["system"] = base.at("system");
  if (base.contains("cvs")) j["cvs"] = base.at("cvs");
  return j;
}

json SwarmConfig::effective_json() const {
  json j = result_relevant_json();
  j["pathgennie"]["max_cycle"] = swarm.max_cycle;
  j["pathgennie"]["devices"] = swarm.devices;
  j["pathgennie"]["workers_per_device"] = swarm.workers_per_device;
  j["pathgennie"]["probe_batch"] = swarm.probe_batch == 0 ? json(nullptr) : json(swarm.probe_batch);
  j["pathgennie"]["profile"] = swarm.profile ? json(*swarm.profile) : json(nullptr);
  j["pathgennie"]["temperature"] = swarm.temperature ? json(*swarm.temperature) : json(nullptr);
  j["pathgennie"]["save_subframes"] = swarm.save_subframes;
  j["pathgennie"]["subframe_stride"] = swarm.subframe_stride;
  if (swarm.learned_projection) {
    const auto& at = swarm.learned_projection->iteration;
    j["pathgennie"]["projection"]["iteration"] = at ? json(*at) : json(nullptr);
  }
  j["workdir"] = workdir.string();
  return j;
}

}  // namespace trails::config