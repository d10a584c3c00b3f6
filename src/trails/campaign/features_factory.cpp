#include "trails/campaign/features_factory.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "trails/campaign/trajectory_topology.h"
#include "trails/core/error.h"
#include "trails/cvs/cv_set.h"
#include "trails/cvs/cv_spec.h"
#include "trails/features/molecular_features.h"
#include "trails/structure/selection.h"
#include "trails/structure/structure_file.h"

namespace trails::campaign {
namespace {

// The feature atoms and the fitted_coords reference: from system.trajectory_topology_file when
// set (Trails-MD's FeatureExtractor reads that file; compat:trajectory-topology), else from the
// prepared topology.
std::unique_ptr<features::FeatureSource> molecular_features(const config::CampaignConfig& config,
                                                            const engines::Engine& engine) {
  const engines::EngineSystem& system = engine.system();
  const std::optional<TrajectoryTopology> trajectory_topology =
      read_trajectory_topology(config, engine);
  if (!trajectory_topology && !system.topology) {
    throw core::ConfigError("system.feature_selection: the prepared system in " +
                            system.prepared_dir.string() +
                            " has no topology.pdb, so the feature atoms cannot be resolved");
  }
  const structure::Topology& topology =
      trajectory_topology ? *trajectory_topology->topology : *system.topology;
  const std::vector<double>& reference =
      trajectory_topology ? trajectory_topology->positions_nm : system.reference_positions;
  const auto& l = config.learned;
  std::vector<int> atoms;
  try {
    atoms = structure::select_nonempty(topology, l.feature_atoms, "system.feature_selection");
  } catch (core::Error& e) {
    if (e.exit_code() != 2) throw;
    throw core::ConfigError(fmt::format("{}: {}", config.config_file.string(), e.describe()));
  }
  std::vector<std::string> types = {l.feature_type};
  if (l.selection.enabled) {
    for (const auto& t : l.selection.candidate_feature_types) {
      if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
    }
  }
  const auto encoding = l.sincos ? cvs::AngleEncoding::Sincos : cvs::AngleEncoding::Raw;
  auto source = std::make_unique<features::MolecularFeatures>();
  for (const auto& type : types) {
    const char* key = type == l.feature_type ? "adaptive_feature_type"
                                             : "feature_selection.candidate_feature_types";
    try {
      // fitted_coords: fitted onto the topology file's coordinates (compat:fitted-coords).
      cvs::CvSet set({cvs::trails_md_feature(type, atoms, encoding)}, topology, reference);
      if (set.dimension() < config.cv_dimension()) {
        throw core::ConfigError(fmt::format(
            "gives {} feature(s) over system.feature_selection \"{}\", fewer than the {} "
            "learned dimension(s) of n_bins; select more atoms or give fewer n_bins axes",
            set.dimension(), l.feature_atoms, config.cv_dimension()));
      }
      source->add(type, std::move(set));
    } catch (core::Error& e) {
      if (e.exit_code() != 2) throw;
      throw core::ConfigError(
          fmt::format("{}: {} {}: {}", config.config_file.string(), key, type, e.describe()));
    }
  }
  return source;
}

}  // namespace

std::unique_ptr<features::FeatureSource> make_feature_source(const config::CampaignConfig& config,
                                                             const engines::Engine& engine) {
  // A non-molecular engine's features are its coordinates.
  if (!engine.system().molecular) {
    return features::make_coordinate_features(engine.n_atoms() * engine.spatial_dim());
  }
  return molecular_features(config, engine);
}

}  // namespace trails::campaign
