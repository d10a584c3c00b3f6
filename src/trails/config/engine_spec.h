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

// Where the external engines (command, Amber, GROMACS) run each walker: a private directory
// under `scratch` (execution.scratch; unset: $TMPDIR, then /tmp), removed after the walker. With
// keep_walker_files every one is moved to run_dir/walker_files/iteration_I/walker_W; without,
// a failed walker's stays in scratch (docs/engines.md, "Walker files and scratch").
struct WalkerFilesSpec {
  std::optional<std::filesystem::path> scratch;
  bool keep_walker_files = false;
};

// engine.md_engine: gromacs, Trails-MD's gromacs_* keys (docs/engines.md, "The GROMACS engine").
struct GromacsEngineConfig {
  std::string executable = "gmx";  // engine.gromacs_executable (PATH lookup without a '/')
  int mdrun_ntmpi = 1;             // -ntmpi
  std::optional<int> mdrun_ntomp;  // -ntomp; none: $OMP_NUM_THREADS, $SLURM_CPUS_PER_TASK, omitted
  std::optional<std::string> mdrun_nb, mdrun_pme, mdrun_update, mdrun_bonded;  // auto|cpu|gpu
  std::optional<std::string> mdrun_pin;       // auto|on|off; on: -pinoffset from the slot
  std::vector<std::string> mdrun_extra_args;  // appended verbatim
  int grompp_maxwarn = 0;                     // grompp -maxwarn
};

// Everything the GROMACS engine is built from. Paths are absolute.
struct GromacsSpec {
  GromacsEngineConfig params;
  std::filesystem::path conf_file;                    // system.conf_file (.gro/.pdb)
  std::filesystem::path top_file;                     // system.top_file (.top)
  std::optional<std::filesystem::path> mdp_template;  // system.system_file
  std::optional<std::filesystem::path> include_dir;   // engine.gromacs_include_dir (GMXLIB)
  WalkerFilesSpec files;                              // execution.scratch, keep_walker_files
  std::optional<double> timeout_s;                    // $TRAILS_MD_TIMEOUT: grompp, mdrun
  double temperature = 300.0;                         // engine.temperature (K)
  double pressure = 1.0;                              // engine.pressure (atm; the MDP gets bar)
  bool npt = false;                                   // engine.npt
  double dt = 0.002;                                  // engine.dt (ps)
  int steps = 10000;  // spawning.step: only for the template's {steps}
  int stride = 100;   // spawning.stride: only for the template's {stride}
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

// engine.md_engine: command: a user's program runs each segment (docs/engines.md, "The command
// engine"). A molecular system when conf_file is set (its PDB/GRO gives the topology and the
// reference structure; nm, ps, K), else a point system whose coordinates are the CVs (reduced
// units; start is system.start's first point and fixes the dimension).
struct CommandSpec {
  std::vector<std::string> command;  // engine.command: argv, argv[0] looked up in PATH
  std::optional<double> timeout_s;   // engine.command_timeout, else $TRAILS_MD_TIMEOUT
  double dt = 0.002;                 // engine.dt, handed to the program
  double temperature = 300.0;        // engine.temperature
  double pressure = 1.0;             // engine.pressure
  bool npt = false;                  // engine.npt
  std::optional<std::filesystem::path> conf_file;  // system.conf_file (.pdb/.gro): molecular
  std::vector<double> start;                       // point systems: system.start[0]
  WalkerFilesSpec files;
};

// engine.md_engine: amber: pmemd/sander per segment (docs/engines.md, "The Amber engine").
struct AmberSpec {
  std::string executable = "pmemd";                 // engine.amber_executable
  std::optional<std::filesystem::path> input_file;  // engine.amber_input_file (mdin template)
  std::vector<std::string> extra_args;              // engine.amber_extra_args
  std::optional<double> timeout_s;                  // $TRAILS_MD_TIMEOUT: pmemd/sander
  bool netcdf = true;  // engine.amber_trajectory_format: netcdf/auto (true), ascii (false)
  std::filesystem::path top_file;   // system.top_file (prmtop)
  std::filesystem::path conf_file;  // system.conf_file (inpcrd/rst7/ncrst)
  double dt = 0.002;                // engine.dt (ps)
  double temperature = 300.0;       // engine.temperature (K)
  double pressure = 1.0;            // engine.pressure
  bool npt = false;                 // engine.npt
  WalkerFilesSpec files;
};

using EngineSpec = std::variant<BuiltinSpec, OpenMMSpec, GromacsSpec, CommandSpec, AmberSpec>;

// $TRAILS_MD_TIMEOUT (docs/engines.md, "Subprocess time limit"): the external engines' limit on
// each subprocess (grompp, mdrun, pmemd/sander; the command engine's program when
// engine.command_timeout is unset). Unset, empty or 0: none. Throws core::ConfigError naming the
// variable for anything but a finite number >= 0 (md_timeout.cpp).
std::optional<double> md_timeout_from_environment();

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
