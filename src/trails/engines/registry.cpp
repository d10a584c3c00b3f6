#include "trails/engines/registry.h"

#include "trails/core/error.h"
#include "trails/engines/builtin/builtin_engine.h"
#include "trails/engines/openmm/openmm_engine.h"
#include "trails/engines/openmm/prepared_system.h"

namespace trails::engines {

std::unique_ptr<Engine> make_engine(const config::CampaignConfig& config,
                                    const std::filesystem::path& run_dir) {
  if (config.engine.md_engine == "openmm") {
    return std::make_unique<openmm::OpenMMEngine>(
        config.engine.openmm, openmm::prepare_openmm_system(config, run_dir),
        config.engine_seed_base());
  }
  return make_engine(config.engine);
}

std::unique_ptr<Engine> make_engine(const config::EngineConfig& config) {
  if (config.md_engine == "builtin") return std::make_unique<builtin::BuiltinEngine>(config.builtin);
  if (config.md_engine == "openmm") {
    throw core::ConfigError(
        "engine.md_engine: openmm needs its prepared system; call "
        "make_engine(CampaignConfig, run_dir)");
  }
  throw core::ConfigError("engine.md_engine: '" + config.md_engine +
                          "' is not available in this build of Trails; use 'openmm' or 'builtin'");
}

}  // namespace trails::engines
