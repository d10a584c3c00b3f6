// The campaign's GROMACS run input: grompp once on system.conf_file, system.top_file and the
// MDP (mdp.h), into RUN_DIR/prepared/gromacs-<digest>/ (reused while the digest of the inputs
// matches: a resume runs no grompp), the located fields (tpr_patch.h), the per-atom masses
// (read back with `gmx dump`) and the start structure as topology.pdb. `trails check` builds
// the engine, so grompp runs there too and its own message reaches the user (exit 2).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "trails/config/engine_spec.h"
#include "trails/engines/gromacs/tpr_patch.h"

namespace trails::engines::gromacs {

struct PreparedRun {
  std::filesystem::path run_dir;       // RUN_DIR: failed walkers' files go to RUN_DIR/walker_files
  std::filesystem::path dir;           // RUN_DIR/prepared/gromacs-<digest>
  std::filesystem::path tpr;           // topol.tpr
  std::filesystem::path topology_pdb;  // the start structure as PDB
  std::string digest;
  TprLayout layout;
  std::vector<double> masses;     // amu, one per atom
  std::vector<double> positions;  // start structure, nm, n_atoms * 3 (full file precision)
  std::vector<double> box;        // 9 values, rows a b c (nm); zeros when the file has none
};

// The gmx environment: GMXLIB with engine.gromacs_include_dir in front (docs/engines.md, "Keys").
std::vector<std::pair<std::string, std::string>> gmx_environment(const config::GromacsSpec& spec);

// Prepares or reuses the run input. grompp's refusal is a ConfigError quoting grompp's message;
// a missing gmx an InputError naming engine.gromacs_executable.
PreparedRun prepare_gromacs_run(const config::GromacsSpec& spec,
                                const std::filesystem::path& run_dir);

}  // namespace trails::engines::gromacs
