// system.trajectory_topology_file (docs/trails-md-compatibility.md#compat-trajectory-topology):
// the topology Trails-MD reads trajectories with. Trails reads it (PDB or GRO) before any MD and
// checks it against the engine's atoms; the learned-space feature atoms and the fitted_coords
// reference come from it, and extract_cvs receives its path as top_file. Private to campaign/.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "trails/config/campaign_config.h"
#include "trails/engines/engine.h"
#include "trails/structure/topology.h"

namespace trails::campaign {

struct TrajectoryTopology {
  std::shared_ptr<const structure::Topology> topology;
  std::vector<double> positions_nm;  // its first frame, n_atoms × 3
};

// nullopt when the key is not set. ConfigError for a non-molecular engine; InputError naming the
// key for a file that cannot be read or whose atom count differs from the engine's system.
std::optional<TrajectoryTopology> read_trajectory_topology(const config::CampaignConfig& config,
                                                           const engines::Engine& engine);

}  // namespace trails::campaign
