// The GROMACS engine's keys and spec (engine.md_engine: gromacs; docs/engines.md, "The GROMACS
// engine"); gromacs.cpp is its module (rows, checks, spec, JSON).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trails/config/engines/external.h"

namespace trails::config {

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

}  // namespace trails::config
