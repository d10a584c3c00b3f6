// The OpenMM engine (`engine.md_engine: openmm`), through OpenMM's C++ API only.
// Each EngineInstance keeps one warm Context across walkers and iterations, built on its first
// walker with that walker's seed. engine.reproducibility says how it is re-armed for the next
// walker: bitwise re-seeds the integrator (and barostat) and reinitializes the Context (OpenMM
// reads a seed only when it builds a Context's kernels), giving bitwise the frames of a fresh
// Context (tested on Reference, CPU and OpenCL); fast keeps the kernels and lets the noise
// continue (the GPU platforms' default: a rebuild costs them about a second). Positions, box and
// velocities always come from the task (docs/engines.md, "Reproducibility").
// Frames are taken in memory every `stride` steps as double-precision nm; no reporters, no files.
#pragma once

#include <memory>
#include <string>

#include "trails/config/engine_spec.h"
#include "trails/engines/engine.h"
#include "trails/engines/openmm/prepared_system.h"

namespace trails::engines::openmm {

// Walker seeds are 64-bit; OpenMM takes a positive int (0 would mean "pick one from the clock").
int openmm_seed(std::uint64_t seed);

class OpenMMEngine final : public Engine {
 public:
  // seed_base: the campaign's engine seed, used only for the pre-equilibration
  // (engine.equilibrate).
  OpenMMEngine(const config::OpenMMEngineConfig& config, PreparedSystem prepared,
               std::uint64_t seed_base = 0);

  std::string name() const override { return "openmm"; }
  using Engine::make_instance;
  // slot.device, when set, replaces engine.device_index for this instance (CUDA DeviceIndex,
  // OpenCL OpenCLDeviceIndex, HIP HipDeviceIndex); CPU and Reference have no device to choose.
  std::unique_ptr<EngineInstance> make_instance(const Slot& slot) const override;
  Configuration default_start() const override { return start_; }
  const EngineSystem& system() const override { return system_; }
  EngineCapabilities capabilities() const override {
    return {.continues_velocities = true,
            .uses_devices = platform_ == "CUDA" || platform_ == "OpenCL" || platform_ == "HIP",
            .records_atom_selection = true};
  }
  std::string describe() const override;

  const std::string& platform_name() const { return platform_; }  // after fallback
  const PreparedSystem& prepared() const { return prepared_; }
  const config::OpenMMEngineConfig& config() const { return config_; }

 private:
  Configuration equilibrated_start(std::uint64_t seed_base) const;

  config::OpenMMEngineConfig config_;
  PreparedSystem prepared_;
  std::string platform_;
  std::string system_xml_;      // each instance deserializes its own System (barostat seeds)
  std::string integrator_xml_;  // custom make_system() integrator, or empty
  Configuration start_;
  EngineSystem system_;
};

}  // namespace trails::engines::openmm
