// A molecular system made ready for the OpenMM engine: the serialized System, the topology with
// start positions, and what was read back from them. Preparation runs OpenMM's Python
// application layer (share/trails/prepare_openmm.py through engine.python, core/python.h) once per
// campaign; its output lives in RUN_DIR/prepared/<digest>/ and is reused while the inputs' digest
// matches.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trails/config/engine_spec.h"

namespace trails::engines::openmm {

struct PreparedSystem {
  std::filesystem::path dir;           // holds the files below and prepare.json
  std::filesystem::path system_xml;    // serialized OpenMM System
  std::filesystem::path topology_pdb;  // topology + start positions (empty if none was written)
  std::optional<std::filesystem::path> integrator_xml;  // from a custom make_system() module
  std::string digest;  // of the inputs (files' bytes and parameters)
  int n_atoms = 0;
  std::vector<double> positions;  // n_atoms × 3, nm, full precision
  std::vector<double> box;        // 9 values (rows a, b, c; nm), empty when not periodic
  std::string source;             // forcefield | top | prmtop | system_xml | make_system
  std::vector<std::string> forcefield;
  std::string openmm_version;  // of the Python OpenMM that prepared it ("" in older records)
};

// Reads a prepared directory (system.xml + prepare.json). Throws InputError naming the file,
// or CorruptionError naming a file changed, added or removed since preparation (prepare.json's
// "checksums"; a record without them is read unverified: docs/reliability.md).
PreparedSystem load_prepared_system(const std::filesystem::path& dir);

// Digest of everything preparation reads: file contents, force fields, the createSystem
// parameters and the script itself.
std::string preparation_digest(const config::OpenMMSpec& spec);

// Prepares (or reuses) RUN_DIR/prepared/<digest>/. Bad inputs (missing file, unknown force
// field, atom-count mismatch) throw ConfigError naming the key and quoting OpenMM's message.
PreparedSystem prepare_openmm_system(const config::OpenMMSpec& spec,
                                     const std::filesystem::path& run_dir);

// The preparation script (installed in the source tree; TRAILS_PREPARE_SCRIPT overrides).
std::filesystem::path preparation_script();

}  // namespace trails::engines::openmm
