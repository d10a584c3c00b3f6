// Cross-field rules of the grid (n_bins promotion, fixed-space bounds), spawning (target, step
// against stride), run sizes and the walker timeout, the helpers the other check files share, and
// check_cross_fields(), which runs every check in one order (cross_checks.h).
#include "trails/config/cross_checks.h"

#include <algorithm>
#include <string>

#include "trails/config/convert.h"
#include "trails/config/schema.h"

namespace trails::config::detail {

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
  // Weighted ensemble, per_bin: every occupied bin gets we_target_per_bin walkers, so the
  // walkers of an iteration can reach that times the grid's bins.
  const Entry& per_bin = raw.at("spawning.we_target_per_bin");
  if (per_bin.present && per_bin.valid && raw.usable("spawning.we_allocation") &&
      raw.value("spawning.we_allocation") == "per_bin") {
    std::int64_t bins = 1;
    for (const int n : effective_n_bins(raw))
      bins = std::min<std::int64_t>(bins * n, kMaxWalkers + 1);
    const std::int64_t most = per_bin.value.get<std::int64_t>() * bins;
    if (most > kMaxWalkers) {
      problems.add(
          per_bin.value_at, "spawning.we_target_per_bin",
          std::to_string(per_bin.value.get<std::int64_t>()) + " walkers in each of up to " +
              std::to_string(bins) + " occupied bins (we_allocation: per_bin) could be " +
              "more walkers than Trails runs in one iteration (at most " +
              std::to_string(kMaxWalkers) + "); lower spawning.we_target_per_bin or n_bins");
    }
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

void check_walker_timeout(const RawConfig& raw, Problems& problems) {
  const Entry& timeout = raw.at("execution.walker_timeout");
  if (!timeout.present || !timeout.valid || timeout.value.is_null()) return;
  // With MPI ranks and scheduler arrays the rules are others (execution_checks.cpp).
  if (raw.usable("execution.backend") && raw.value("execution.backend") != "local") return;
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

void check_cross_fields(const RawConfig& raw, Problems& problems) {
  check_sizes(raw, problems);
  check_walker_timeout(raw, problems);
  check_learned_space(raw, problems);
  check_project_file(raw, problems);
  check_learned_features(raw, problems);
  check_engine(raw, problems);
  check_molecular_inputs(raw, problems);
  check_n_bins(raw, problems);
  check_bounds(raw, problems);
  check_builtin_dimensions(raw, problems);
  check_spawning(raw, problems);
  check_voronoi(raw, problems);
  check_kinetics(raw, problems);
  check_msm(raw, problems);
  check_output(raw, problems);
  check_execution(raw, problems);
}

}  // namespace trails::config::detail
