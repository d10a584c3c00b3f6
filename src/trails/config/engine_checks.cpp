// The engine's cross-field rules: engine.md_engine is available and has what it needs, built-in
// engine keys only with it, and the built-in potential's dimension against n_bins and
// system.start (cross_checks.h).
#include <algorithm>
#include <filesystem>
#include <string>

#include "trails/config/convert.h"
#include "trails/config/cross_checks.h"
#include "trails/config/engines/engine_module.h"
#include "trails/config/schema.h"

namespace trails::config::detail {

using json = nlohmann::json;

namespace {

// The GROMACS engine runs grompp on system.conf_file (.gro/.pdb) and system.top_file (.top);
// system.system_file, when set, is the MDP template (docs/engines.md, "GROMACS").
void check_gromacs_inputs(const RawConfig& raw, Problems& problems) {
  const Entry& md = raw.at("engine.md_engine");
  const std::pair<const char*, const char*> needed[] = {
      {"system.conf_file", "a start structure (.gro or .pdb)"},
      {"system.top_file", "a GROMACS topology (.top)"}};
  for (const auto& [key, what] : needed) {
    const Entry& e = raw.at(key);
    if (e.valid && e.value.is_null()) {
      problems.add(md.value_at, key,
                   std::string("the GROMACS engine needs ") + what + ": set " + key);
    }
  }
  if (raw.usable("spawning.step") && raw.usable("spawning.stride")) {
    const int step = raw.value("spawning.step").get<int>();
    const int stride = raw.value("spawning.stride").get<int>();
    if (stride > 0 && step % stride != 0) {
      const Entry& e = raw.at("spawning.step");
      problems.add(e.present ? e.value_at : md.value_at, "spawning.step",
                   std::to_string(step) + " is not a multiple of spawning.stride " +
                       std::to_string(stride) +
                       "; the GROMACS engine takes each walker's final state from its last TRR "
                       "frame, so give a step count that the stride divides");
    }
  }
  const Entry& top = raw.at("system.top_file");
  if (top.present && top.valid && top.value.is_string()) {
    const std::string t = top.value.get<std::string>();
    if (t.size() < 4 || t.substr(t.size() - 4) != ".top") {
      problems.add(top.value_at, "system.top_file",
                   "is '" + t + "'; the GROMACS engine reads a GROMACS .top file");
    }
  }
}

// engine.dt in the molecular engines' own unit, ps: an all-atom step is 0.5-4 fs and a
// coarse-grained one up to 40 fs, so a value past 0.05 ps is a unit slip (2.0 meant as fs,
// i.e. 0.002) and one below 1e-5 ps (0.01 fs) one the other way. Said by `trails check`,
// before a run that would blow up at its first segment.
void check_md_time_step(const RawConfig& raw, const std::string& engine, Problems& problems) {
  const Entry& dt = raw.at("engine.dt");
  if (!dt.present || !dt.valid || !dt.value.is_number()) return;
  const double v = dt.value.get<double>();
  const std::string fs = format_number(v * 1000.0);
  if (v > 0.05) {
    problems.add(dt.value_at, "engine.dt",
                 format_number(v) + " ps (" + fs + " fs) is not an MD time step: " + engine +
                     " steps in ps, so 2 fs is 0.002; write engine.dt in ps (at most 0.05, "
                     "a coarse-grained step)");
  } else if (v < 1e-5) {
    problems.add(dt.value_at, "engine.dt",
                 format_number(v) + " ps (" + fs + " fs) is far below any MD time step: " + engine +
                     " steps in ps, so 2 fs is 0.002");
  }
}

}  // namespace

void check_engine(const RawConfig& raw, Problems& problems) {
  if (!raw.blocks.count("engine")) return;  // "missing required block" already said it
  const Entry& md = raw.at("engine.md_engine");
  if (md.present && !md.valid) return;  // a bad md_engine value: do not guess which was meant
  // The chosen engine's own rules (config/engines/).
  if (md.present && md.valid) {
    const EngineModule* module = engine_module(md.value.get<std::string>());
    if (module != nullptr && module->check != nullptr) module->check(raw, problems);
  }
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
  if (md.present && md.valid && md.value == "gromacs") check_gromacs_inputs(raw, problems);
  if (is_openmm(raw)) check_md_time_step(raw, "OpenMM", problems);
  if (md.present && md.valid && (md.value == "gromacs" || md.value == "amber")) {
    check_md_time_step(raw, md.value == "gromacs" ? "GROMACS" : "Amber", problems);
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

// Start points are coordinates of point systems; a molecular engine starts from its structure.
void refuse_start_point(const RawConfig& raw, Problems& problems, const std::string& who) {
  const Entry& start = raw.at("system.start");
  if (start.present && start.valid && !start.value.is_null()) {
    problems.add(start.value_at, "system.start",
                 who +
                     " starts from system.conf_file; system.start gives points of a point "
                     "system: remove it");
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

}  // namespace trails::config::detail
