#include "trails/campaign/trajectory_topology.h"

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/structure/structure_file.h"

namespace trails::campaign {

std::optional<TrajectoryTopology> read_trajectory_topology(const config::CampaignConfig& config,
                                                           const engines::Engine& engine) {
  const auto& path = config.system.trajectory_topology_file;
  if (!path) return std::nullopt;
  if (!engine.system().molecular) {
    throw core::ConfigError(
        "system.trajectory_topology_file needs a molecular engine "
        "(engine.md_engine: openmm); the " +
        engine.name() + " engine has no atoms; remove the key");
  }
  structure::StructureFile file;
  try {
    file = structure::read_structure(*path);
  } catch (const core::Error& e) {
    if (e.exit_code() != 2) throw;
    throw core::InputError("system.trajectory_topology_file: " + e.describe() +
                           "; give a PDB or GRO file of the system's atoms");
  }
  // Trails-MD reads every trajectory with it, so it must describe the atoms the engine writes.
  if (file.topology.n_atoms() != engine.n_atoms()) {
    throw core::InputError(fmt::format(
        "system.trajectory_topology_file: {} has {} atoms but the prepared system (from "
        "system.conf_file and system.top_file) has {}; give a topology of the same atoms, or "
        "remove the key",
        path->string(), file.topology.n_atoms(), engine.n_atoms()));
  }
  TrajectoryTopology out;
  out.positions_nm = std::move(file.frames.front());
  out.topology = std::make_shared<const structure::Topology>(std::move(file.topology));
  return out;
}

}  // namespace trails::campaign
