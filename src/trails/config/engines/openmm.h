// The OpenMM engine's keys and spec (engine.md_engine: openmm; docs/engines.md); openmm.cpp is
// its module (rows, checks, spec, JSON). Units: K, atm, ps, nm.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trails::config {

// engine.reproducibility (OpenMM): how a warm Context is re-armed for the next walker
// (docs/engines.md, "Reproducibility"). Auto: Fast on the GPU-type platforms (CUDA, OpenCL, HIP),
// Bitwise on CPU and Reference.
enum class Reproducibility { Auto, Bitwise, Fast };

// engine.reproducibility by its YAML name (auto, bitwise, fast); nullopt for any other.
std::optional<Reproducibility> reproducibility_named(const std::string& name);
const char* reproducibility_name(Reproducibility r);

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
  Reproducibility reproducibility = Reproducibility::Auto;  // engine.reproducibility
  bool equilibrate = false;         // engine.equilibrate: pre-equilibrate the start structure
  std::optional<int> device_index;  // GPU index for DeviceIndex-style properties; none: inherit
  // Fixed by Trails-MD, not keys: friction 1/ps, barostat interval 25, constraint tolerance 1e-6,
  // 5000 equilibration steps.
  double friction = 1.0;
  int barostat_interval = 25;
  double constraint_tolerance = 1e-6;
  int equilibration_steps = 5000;
};

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

}  // namespace trails::config
