// Engine: a registry entry that makes per-worker EngineInstances. An instance holds warm state
// (a loaded potential, an OpenMM Context) and runs one SegmentTask at a time, on one thread at a
// time. Re-arming a warm instance gives bitwise a fresh instance's result (tested) unless the
// engine documents a fast re-arm (OpenMM's engine.reproducibility, docs/engines.md). run() never
// throws for a walker failure: it returns Failed. Drivers learn the system from system() and
// capabilities(): only config/ and the registry name a concrete engine (docs/architecture.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "trails/engines/engine_system.h"
#include "trails/engines/segment.h"
#include "trails/engines/slot.h"

namespace trails::engines {

class EngineInstance {
 public:
  virtual ~EngineInstance() = default;
  virtual SegmentResult run(const SegmentTask& task) = 0;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  // One warm instance for `slot` (an engine may bind it to slot.device). Executors call this
  // once per slot they own.
  virtual std::unique_ptr<EngineInstance> make_instance(const Slot& slot) const = 0;
  // An instance on a default slot (index 0, the engine's configured device): tests and tools.
  // Implementations add `using Engine::make_instance;` so this overload stays visible.
  std::unique_ptr<EngineInstance> make_instance() const { return make_instance(Slot{}); }
  // Configuration the campaign starts from when the config gives no start point.
  virtual Configuration default_start() const = 0;
  virtual const EngineSystem& system() const = 0;
  virtual EngineCapabilities capabilities() const = 0;
  // One line for a run's banner: the engine and its main settings as actually used (for OpenMM
  // the platform after any fallback).
  virtual std::string describe() const = 0;

  int n_atoms() const { return system().n_atoms; }
  int spatial_dim() const { return system().spatial_dim; }
};

}  // namespace trails::engines
