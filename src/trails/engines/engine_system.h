// What an engine reports about the system it integrates, so that drivers, CV projections and
// reports never need to know which engine they hold (docs/architecture.md, "Engines").
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/structure/topology.h"

namespace trails::engines {

struct EngineSystem {
  int n_atoms = 1;
  int spatial_dim = 2;
  // Molecular engines: atoms in 3-D, lengths in nm. Otherwise the particle is a point of the
  // CV space itself (the built-in engine: its coordinates are the CVs).
  bool molecular = false;
  std::shared_ptr<const structure::Topology> topology;  // when molecular and one was prepared
  std::filesystem::path topology_file;      // that topology as a PDB file (exports, project files)
  std::filesystem::path prepared_dir;       // where the engine's prepared inputs live ("" if none)
  std::vector<double> reference_positions;  // the start structure, n_atoms × spatial_dim
  std::vector<double> box;                  // 9 values (rows a, b, c), empty when not periodic
  double dt = 0.0;                          // integration time step, in time_unit
  std::string time_unit;                    // "ps" or "reduced"
  std::string length_unit;                  // "nm" or "reduced"

  // The part reports read back from a run's ledger (no topology object, no paths).
  nlohmann::json to_json() const;
};

// What an engine can do, asked by drivers instead of testing the engine's name.
struct EngineCapabilities {
  bool continues_velocities = false;  // a task's start velocities are used, not redrawn
  bool uses_devices = false;          // instances can be bound to accelerator devices
  // output.record_selection: the shards may keep a selection of the atoms of topology_file
  // (docs/file-formats.md, record policy); the OpenMM engine only.
  bool records_atom_selection = false;
};

}  // namespace trails::engines
