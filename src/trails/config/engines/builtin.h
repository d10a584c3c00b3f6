// The built-in engine's keys and spec (engine.md_engine: builtin; docs/engines.md); builtin.cpp
// is its module (rows, checks, spec, JSON). Reduced units.
#pragma once

namespace trails::config {

enum class Potential { DoubleWell, MullerBrown, ThreeWell, Harmonic, BiasedWalk };
enum class Integrator { Overdamped, Langevin };

struct BuiltinEngineConfig {
  Potential potential = Potential::MullerBrown;
  Integrator integrator = Integrator::Overdamped;
  double kT = 1.0;
  double dt =
      0.002;  // engine.dt: shared with OpenMM's key; the template sets a potential-fit value
  double friction = 1.0;  // gamma (1/time), Langevin only; overdamped uses mobility 1/friction
  double mass = 1.0;
  double synthetic_cost_ms = 0.0;  // each segment also sleeps this long (orchestration benchmarks)
  // Each segment sleeps this long while re-arming, counted as start-up (trails advise tests).
  double synthetic_startup_ms = 0.0;
  int dimension = 2;  // harmonic only: n-D (engine.dimension); others fixed by potential
};

// The built-in engine's spec is its parameters.
using BuiltinSpec = BuiltinEngineConfig;

// engine.potential by its YAML name (double_well, muller_brown, ...); nullopt for any other.
std::optional<Potential> potential_named(const std::string& name);
// The YAML name of a potential (the inverse of potential_named).
const char* potential_name(Potential potential);

}  // namespace trails::config
