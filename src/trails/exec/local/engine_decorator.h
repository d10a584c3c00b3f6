// An engine that forwards everything to another and wraps each instance it makes: the binding
// check (binding_check.h) and the walker watch of array tasks (task_heartbeat.h) add their
// per-result work this way without touching the engine. `inner` must outlive the decorator's
// instances.
#pragma once

#include <memory>
#include <string>

#include "trails/engines/engine.h"

namespace trails::exec {

class EngineDecorator : public engines::Engine {
 public:
  explicit EngineDecorator(const engines::Engine& inner) : inner_(inner) {}
  std::string name() const override { return inner_.name(); }
  using Engine::make_instance;
  std::unique_ptr<engines::EngineInstance> make_instance(const engines::Slot& slot) const override {
    return wrap(inner_.make_instance(slot), slot);
  }
  engines::Configuration default_start() const override { return inner_.default_start(); }
  const engines::EngineSystem& system() const override { return inner_.system(); }
  engines::EngineCapabilities capabilities() const override { return inner_.capabilities(); }
  std::string describe() const override { return inner_.describe(); }

 protected:
  virtual std::unique_ptr<engines::EngineInstance> wrap(
      std::unique_ptr<engines::EngineInstance> instance, const engines::Slot& slot) const = 0;

 private:
  const engines::Engine& inner_;
};

}  // namespace trails::exec
