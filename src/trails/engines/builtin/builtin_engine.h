// The built-in engine (`engine.md_engine: builtin`): one particle in an analytic potential,
// integrated by overdamped Euler–Maruyama or Langevin BAOAB. All noise comes from the task's
// seed alone, so a segment is a pure function of its task: bitwise reproducible on any thread.
// A walker whose coordinates become non-finite fails with a readable error.
#pragma once

#include <memory>

#include "trails/config/engine_spec.h"
#include "trails/engines/builtin/potential.h"
#include "trails/engines/engine.h"

namespace trails::engines::builtin {

class BuiltinEngine final : public Engine {
 public:
  explicit BuiltinEngine(const config::BuiltinSpec& config);

  std::string name() const override { return "builtin"; }
  using Engine::make_instance;
  // The built-in engine runs on the calling thread: the slot changes nothing.
  std::unique_ptr<EngineInstance> make_instance(const Slot& slot) const override;
  Configuration default_start() const override;
  const EngineSystem& system() const override { return system_; }
  EngineCapabilities capabilities() const override;
  std::string describe() const override;

  const Potential& potential() const { return *potential_; }
  const config::BuiltinEngineConfig& config() const { return config_; }

 private:
  config::BuiltinEngineConfig config_;
  std::shared_ptr<const Potential> potential_;
  EngineSystem system_;
};

}  // namespace trails::engines::builtin
