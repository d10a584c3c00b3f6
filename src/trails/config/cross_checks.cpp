#include "trails/config/cross_checks.h"

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
                   std::string(md.present ? "" : "engine.md_engine is not set, so Trails-MD's "
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
  if (raw.usable(nbins_key) && static_cast<int>(n_bins.size()) != *dim) {
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
  if (!raw.usable("engine.potential")) return std::nullopt;
  const std::string potential = raw.value("engine.potential").get<std::string>();
  if (potential == "double_well" || potential == "biased_walk") return 1;
  if (potential == "muller_brown" || potential == "three_well") return 2;
  if (potential == "harmonic" && raw.usable("engine.dimension")) {
    return raw.value("engine.dimension").get<int>();
  }
  return std::nullopt;
}

void check_cross_fields(const RawConfig& raw, Problems& problems) {
  check_engine(raw, problems);
  check_n_bins(raw, problems);
  check_bounds(raw, problems);
  check_builtin_dimensions(raw, problems);
  check_spawning(raw, problems);
}

}  // namespace trails::config::detail
