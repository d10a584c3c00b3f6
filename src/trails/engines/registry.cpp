#include "trails/engines/registry.h"

#include "trails/core/error.h"
#include "trails/engines/builtin/builtin_engine.h"

namespace trails::engines {

std::unique_ptr<Engine> make_engine(const config::EngineConfig& config) {
  if (config.md_engine == "builtin") return std::make_unique<builtin::BuiltinEngine>(config.builtin);
  throw core::ConfigError("engine.md_engine: '" + config.md_engine +
                          "' is not available in this build of Trails; use 'builtin'");
}

}  // namespace trails::engines
