#include "trails/campaign/projection_factory.h"

#include <optional>

#include <fmt/format.h>

#include "trails/campaign/project_file_projection.h"
#include "trails/campaign/trajectory_topology.h"
#include "trails/core/error.h"
#include "trails/features/cv_projection.h"

namespace trails::campaign {
namespace {

std::unique_ptr<features::Projection> molecular_projection(const config::CampaignConfig& config,
                                                           const engines::Engine& engine) {
  const engines::EngineSystem& system = engine.system();
  // Checked before extract_cvs is probed with it (compat:trajectory-topology); every campaign
  // builds its projection, `trails check` as `trails run`.
  (void)read_trajectory_topology(config, engine);
  if (config.system.project_file) {  // Trails-MD's extract_cvs (cross-checked: no cvs: block)
    return make_project_file_projection(config, system.reference_positions, system.box);
  }
  if (!system.topology) {
    throw core::ConfigError("cvs: the prepared system in " + system.prepared_dir.string() +
                            " has no topology.pdb, so CV selections cannot be resolved");
  }
  auto projection =
      features::make_cv_projection(config.cvs, *system.topology, system.reference_positions,
                                   config.system.conf_file, config.config_file.parent_path());
  // A learned space bins its own len(n_bins) dimensions; these CVs are then evaluation only.
  if (!config.learned_space() && projection->dimension() != config.cv_dimension()) {
    std::string names;
    for (const auto& n : projection->column_names()) names += (names.empty() ? "" : ", ") + n;
    throw core::ConfigError(fmt::format(
        "{}: n_bins has {} entries but the CVs give {} columns ({}); give n_bins, min_values and "
        "max_values one entry per CV column",
        config.config_file.string(), config.cv_dimension(), projection->dimension(), names));
  }
  return projection;
}

}  // namespace

std::unique_ptr<features::Projection> make_projection(const config::CampaignConfig& config,
                                                      const engines::Engine& engine) {
  // A non-molecular engine's particle is a point of the CV space: its coordinates are the CVs.
  if (!engine.system().molecular) {
    return features::make_identity_projection(engine.n_atoms() * engine.spatial_dim());
  }
  return molecular_projection(config, engine);
}

}  // namespace trails::campaign
