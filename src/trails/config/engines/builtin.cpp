// The built-in analytic engine's module (engine_module.h; docs/engines.md, "The built-in
// engine"): its rows (potential, kT, ...), which every run's record holds; its spec, which is its
// parameters, and its wire JSON; the potentials' names and dimensions, and the rules of its
// dimension against n_bins and system.start.
#include <optional>
#include <string>
#include <utility>

#include "trails/config/engines/engine_module.h"
#include "trails/config/key_row.h"
#include "trails/core/error.h"

namespace trails::config::detail {
namespace {

using T = ValueType;
using json = nlohmann::json;

Potential potential_of(const json& v) {
  // The row admits no other name.
  return potential_named(v.get<std::string>()).value_or(Potential::MullerBrown);
}

Integrator integrator_of(const json& v) {
  return v == "langevin" ? Integrator::Langevin : Integrator::Overdamped;
}

const char* integrator_name(Integrator i) {
  return i == Integrator::Langevin ? "langevin" : "overdamped";
}

std::vector<KeySpec> builtin_keys() {
  return rows_of({
      K("engine", "potential", T::String, "muller_brown")
          .one_of({"double_well", "muller_brown", "three_well", "harmonic", "biased_walk"})
          .builtin_engine()
          .fills(
              [](auto& c) -> auto& { return c.engine.builtin.potential; }, potential_of,
              potential_name),
      K("engine", "integrator", T::String, "overdamped")
          .one_of({"overdamped", "langevin"})
          .builtin_engine()
          .fills(
              [](auto& c) -> auto& { return c.engine.builtin.integrator; }, integrator_of,
              integrator_name),
      K("engine", "kT", T::Number, 1.0).gt(0).builtin_engine().fills([](auto& c) -> auto& {
        return c.engine.builtin.kT;
      }),
      K("engine", "friction", T::Number, 1.0).gt(0).builtin_engine().fills([](auto& c) -> auto& {
        return c.engine.builtin.friction;
      }),
      K("engine", "mass", T::Number, 1.0).gt(0).builtin_engine().fills([](auto& c) -> auto& {
        return c.engine.builtin.mass;
      }),
      // Benchmarks' and tests' sleeps: they change timings, not results.
      K("engine", "synthetic_cost_ms", T::Number, 0.0)
          .ge(0)
          .builtin_engine()
          .effective_only()
          .fills([](auto& c) -> auto& { return c.engine.builtin.synthetic_cost_ms; }),
      K("engine", "synthetic_startup_ms", T::Number, 0.0)
          .ge(0)
          .builtin_engine()
          .effective_only()
          .fills([](auto& c) -> auto& { return c.engine.builtin.synthetic_startup_ms; }),
      K("engine", "dimension", T::Int, 2).ge(1).builtin_engine().fills([](auto& c) -> auto& {
        return c.engine.builtin.dimension;
      }),
  });
}

// The particle dimension actually simulated: fixed by the potential unless it is harmonic.
void builtin_finish(const RawConfig& raw, MdSystemConfig& md) {
  md.engine.builtin.dimension = builtin_dimension(raw).value_or(md.engine.builtin.dimension);
}

EngineSpec builtin_spec(const MdSystemConfig& md, const SegmentShape&) { return md.engine.builtin; }

void builtin_values(const MdSystemConfig& md, bool all, json& j) {
  static const std::vector<KeySpec> rows = builtin_keys();
  bound_values(rows, md, all, j);
}

bool always(const MdSystemConfig&) { return true; }

json builtin_spec_json(const EngineSpec& spec) {
  const BuiltinSpec& b = std::get<BuiltinSpec>(spec);
  return {{"engine", "builtin"},
          {"potential", potential_name(b.potential)},
          {"integrator", integrator_name(b.integrator)},
          {"kT", b.kT},
          {"dt", b.dt},
          {"friction", b.friction},
          {"mass", b.mass},
          {"synthetic_cost_ms", b.synthetic_cost_ms},
          {"synthetic_startup_ms", b.synthetic_startup_ms},
          {"dimension", b.dimension}};
}

EngineSpec builtin_spec_from_json(const json& j) {
  BuiltinSpec b;
  const auto potential = potential_named(j.at("potential").get<std::string>());
  if (!potential) throw core::CorruptionError("engine spec: unknown potential " + j.dump());
  b.potential = *potential;
  b.integrator = integrator_of(j.at("integrator"));
  b.kT = j.at("kT").get<double>();
  b.dt = j.at("dt").get<double>();
  b.friction = j.at("friction").get<double>();
  b.mass = j.at("mass").get<double>();
  b.synthetic_cost_ms = j.at("synthetic_cost_ms").get<double>();
  b.synthetic_startup_ms = j.at("synthetic_startup_ms").get<double>();
  b.dimension = j.at("dimension").get<int>();
  return b;
}

}  // namespace

// The built-in engine's rules that the campaign loader runs (check_cross_fields; a swarm checks
// its start points against its chains itself) and the dimension they rest on (cross_checks.h).
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

const EngineModule& builtin_engine_module() {
  static const EngineModule module{.name = "builtin",
                                   .keys = builtin_keys,
                                   .spec = builtin_spec,
                                   .values = builtin_values,
                                   .point_system = always,
                                   .finish = builtin_finish,
                                   .in_every_record = true,
                                   .owns = holds<BuiltinSpec>,
                                   .spec_json = builtin_spec_json,
                                   .spec_from_json = builtin_spec_from_json};
  return module;
}

}  // namespace trails::config::detail

namespace trails::config {

namespace {

constexpr std::pair<const char*, Potential> kPotentialNames[] = {
    {"double_well", Potential::DoubleWell},
    {"muller_brown", Potential::MullerBrown},
    {"three_well", Potential::ThreeWell},
    {"harmonic", Potential::Harmonic},
    {"biased_walk", Potential::BiasedWalk}};

}  // namespace

std::optional<Potential> potential_named(const std::string& name) {
  for (const auto& [n, p] : kPotentialNames) {
    if (name == n) return p;
  }
  return std::nullopt;
}

const char* potential_name(Potential potential) {
  for (const auto& [n, p] : kPotentialNames) {
    if (potential == p) return n;
  }
  return "muller_brown";
}

std::optional<BuiltinSpec> builtin_spec_of_run(const nlohmann::json& effective_config) {
  if (!effective_config.is_object() || !effective_config.contains("engine")) return std::nullopt;
  const auto& engine = effective_config["engine"];
  if (!engine.is_object() || engine.value("md_engine", "") != "builtin") return std::nullopt;
  const auto potential = potential_named(engine.value("potential", "muller_brown"));
  if (!potential) return std::nullopt;
  BuiltinSpec spec;
  spec.potential = *potential;
  spec.dimension = engine.value("dimension", spec.dimension);
  spec.kT = engine.value("kT", spec.kT);
  return spec;
}

}  // namespace trails::config
