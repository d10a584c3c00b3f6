#include "trails/campaign/projection_factory.h"

#include "trails/core/error.h"

namespace trails::campaign {

std::unique_ptr<Projection> make_projection(const config::CampaignConfig& config,
                                            const engines::Engine& engine) {
  if (config.engine.md_engine == "builtin") {
    return make_identity_projection(engine.n_atoms() * engine.spatial_dim());
  }
  throw core::ConfigError("engine.md_engine: " + config.engine.md_engine +
                          " has no CV projection in this build");
}

}  // namespace trails::campaign
