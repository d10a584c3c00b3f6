// The typed descriptions that engines are built from, one struct per engine. config/ builds them
// from a campaign's YAML (CampaignConfig::engine_spec()); engines/ reads only these, never the
// whole campaign configuration. Units: reduced (built-in); K, atm, ps, nm (OpenMM).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

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

// engine.md_engine: openmm, its numerical parameters. The per-walker seed comes from the task.
struct OpenMMEngineConfig {
  double temperature = 300.0;  // engine.temperature (K)
  // K: fresh segment velocities are drawn at this temperature instead of the thermostat's (the
  // swarm's pathgennie.temperature when it differs from engine.temperature: docs/swarm.md).
  std::optional<double> velocity_temperature;
  double pressure = 1.0;               // engine.pressure (atm), NPT only
  bool npt = false;                    // engine.npt: MonteCarloBarostat every 25 steps
  double dt = 0.002;                   // engine.dt (ps)
  std::string platform_name = "CUDA";  // engine.platform_name; unavailable -> fallback + warning
  std::string precision = "mixed";     // engine.precision (CUDA/OpenCL only)
  bool equilibrate = false;            // engine.equilibrate: pre-equilibrate the start structure
  std::optional<int> device_index;     // GPU index for DeviceIndex-style properties; none: inherit
  // Fixed by Trails-MD, not keys: friction 1/ps, barostat interval 25, constraint tolerance 1e-6,
  // 5000 equilibration steps.
  double friction = 1.0;
  int barostat_interval = 25;
  double constraint_tolerance = 1e-6;
  int equilibration_steps = 5000;
};

// The built-in engine's spec is its parameters.
using BuiltinSpec = BuiltinEngineConfig;

// The files an OpenMM system is prepared from (docs/engines.md, "Inputs").
struct MolecularInputs {
  std::optional<std::filesystem::path> conf_file;    // system.conf_file (.pdb/.gro/.inpcrd)
  std::optional<std::filesystem::path> top_file;     // system.top_file (.top/.prmtop/.parm7)
  std::optional<std::filesystem::path> system_file;  // system.system_file (System .xml / .py)
  std::vector<std::string> forcefield;               // system.forcefield (bare PDB input)
  std::optional<std::filesystem::path> gromacs_include_dir;  // engine.gromacs_include_dir (.top)
  std::optional<std::string> python;  // engine.python: the interpreter preparation runs in
};

struct OpenMMSpec {
  OpenMMEngineConfig params;
  MolecularInputs inputs;
  std::uint64_t seed_base = 0;  // the campaign's engine seed: only the pre-equilibration uses it
};

using EngineSpec = std::variant<BuiltinSpec, OpenMMSpec>;

// engine.potential by its YAML name (double_well, muller_brown, ...); nullopt for any other.
std::optional<Potential> potential_named(const std::string& name);
// The YAML name of a potential (the inverse of potential_named).
const char* potential_name(Potential potential);

// Every field of a spec as JSON, and back: how a driver ships its engine to a worker process
// (docs/execution.md, "Persistent worker processes"). Doubles survive exactly (CBOR float64).
// engine_spec_from_json throws CorruptionError for JSON this build did not write.
nlohmann::json engine_spec_json(const EngineSpec& spec);
EngineSpec engine_spec_from_json(const nlohmann::json& j);

// The built-in spec of a run from its stored effective configuration (the ledger's
// effective_config), for pictures of the potential; nullopt when the run used another engine.
std::optional<BuiltinSpec> builtin_spec_of_run(const nlohmann::json& effective_config);

}  // namespace trails::config
