// What both drivers read of a configuration: the MD system (the engine: block, the system:
// block, cvs:), the execution: block, and the seed an engine seed falls back to. A campaign's
// CampaignConfig is one (campaign_config.h), and a swarm holds one (swarm_config.h); each
// engine's module (config/engines/) builds its spec from it alone.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/config/engine_spec.h"
#include "trails/config/scheduler_config.h"

namespace trails::config {

// The MD block every engine reads: engine.temperature (K), pressure (atm), npt and dt (ps; reduced
// units for the built-in engine). apply_md_block copies it into the specs that carry it
// themselves (the built-in engine's dt, the OpenMM engine's parameters).
struct MdBlockConfig {
  double temperature = 300.0;
  double pressure = 1.0;
  bool npt = false;
  double dt = 0.002;
};

struct EngineConfig {
  std::string md_engine = "builtin";  // tested only in config/ and the engine registry
  std::optional<std::uint64_t> seed;  // engine.seed; None -> random_seed
  MdBlockConfig md;
  // Each engine's own keys, one member per entry of config/engines/engine_list.h (builtin,
  // openmm, gromacs, amber, command), named as its engine.md_engine value.
#define TRAILS_ENGINE_KEYS_MEMBER(name, Keys, Spec) Keys name;
  TRAILS_ENGINES(TRAILS_ENGINE_KEYS_MEMBER)
#undef TRAILS_ENGINE_KEYS_MEMBER
  std::optional<std::filesystem::path> gromacs_include_dir;  // engine.gromacs_include_dir (.top)
  // engine.python: the Python interpreter for preparation and system.project_file; unset:
  // $TRAILS_PYTHON, then /usr/bin/python3 (core/python.h).
  std::optional<std::string> python;
  bool keep_walker_files = false;  // engine.keep_walker_files (the external engines)
};

struct SystemConfig {
  // system.start: one point (all walkers) or one point per walker. Empty -> potential's default.
  std::vector<std::vector<double>> start;
  // Molecular systems (OpenMM): structure, parameters, and the force-field list for a bare PDB.
  std::optional<std::filesystem::path> conf_file;    // system.conf_file (.pdb/.gro/.inpcrd)
  std::optional<std::filesystem::path> top_file;     // system.top_file (.top/.prmtop/.parm7)
  std::optional<std::filesystem::path> system_file;  // system.system_file (System .xml / .py)
  std::vector<std::string> forcefield;
  // system.initial_trajectory: first walkers from frames of an XTC/DCD (OpenMM runs;
  // compat:initial-trajectory).
  std::optional<std::filesystem::path> initial_trajectory;
  // system.trajectory_topology_file: the topology Trails-MD reads trajectories with (a PDB or GRO
  // of the system's atoms): feature atoms and the fitted_coords reference, and the top_file
  // argument of extract_cvs (docs/trails-md-compatibility.md#compat-trajectory-topology).
  std::optional<std::filesystem::path> trajectory_topology_file;
  // system.project_file: a Trails-MD Python module whose extract_cvs(trajectories, top_file,
  // conf_file) gives the fixed CVs (OpenMM runs; compat:project-file-cvs).
  std::optional<std::filesystem::path> project_file;
};

// execution: how and where segments run (docs/execution.md). None of these keys changes results:
// the same run gives the same bytes on any devices, worker count or executor. A swarm takes
// backend, persistent_workers, walker_timeout, heartbeat_timeout and binding_check of them.
struct ExecutionConfig {
  std::string backend = "local";         // local | mpi (MPI ranks of one job: mpirun)
  bool persistent_workers = false;       // one `trails worker` process per slot
  std::optional<double> walker_timeout;  // seconds; kills the one hung walker's worker
  std::vector<int> devices;  // execution.devices or engine.gpu_ids; empty: spawning.max_workers
  std::string devices_key = "execution.devices";  // the key that set them, for messages
  int workers_per_device = 1;                     // 0: auto, measured (exec/local/packing_tuner.h)
  std::string binding_check = "warn";             // warn | fail | off
  // execution.scratch is read once, into scheduler.scratch: the array job scripts stage there,
  // and the external engines make walker directories there (walker_files()).
  SchedulerConfig scheduler;  // backend slurm | pbs | torque; execution.scratch
};

// The length of the segments an engine is prepared for, where its preparation needs one (the
// GROMACS MDP template's {steps} and {stride}): a campaign's spawning.step and stride; a swarm's
// trials set their own, so it leaves these.
struct SegmentShape {
  int steps = 10000;
  int stride = 100;
};

struct MdSystemConfig {
  // random_seed (campaign) or pathgennie.seed (swarm): the engine seed when engine.seed is unset.
  std::uint64_t random_seed = 42;
  // cvs: the fixed CV space of a molecular run, one JSON object per entry (docs/cvs.md); null:
  // Trails-MD's fallback [Rg, RMSD] of the protein. Parsed and checked by the driver against
  // the topology before any MD runs.
  nlohmann::json cvs;
  SystemConfig system;
  EngineConfig engine;
  ExecutionConfig execution;

  std::uint64_t engine_seed_base() const { return engine.seed.value_or(random_seed); }
  // The typed description of the chosen engine (engine.md_engine), all that engines/ sees: a
  // look-up in the engine modules' table (config/engines/registry.cpp).
  EngineSpec engine_spec(const SegmentShape& segment = {}) const;
  // Where an external engine runs its walkers (execution.scratch, engine.keep_walker_files).
  WalkerFilesSpec walker_files() const;
  // The engine's state is a point in reduced units whose coordinates are the CVs (the built-in
  // engine; the command engine without a system.conf_file), not atoms in nm.
  bool point_system() const;
};

// The engine, system and cvs blocks of the run's JSON records (result_relevant_json with all =
// false, effective_json with all = true) into j: the shared keys and the engine module's own
// (campaign_json.cpp). Both drivers' records hold it.
void md_system_values(const MdSystemConfig& md, bool all, nlohmann::json& j);

}  // namespace trails::config
