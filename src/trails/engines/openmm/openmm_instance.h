// One OpenMM engine instance (private to engines/openmm): a warm Context per instance, built on
// the first walker with that walker's seed. Per later walker, per engine.reproducibility
// (docs/engines.md, "Reproducibility"): bitwise re-seeds the integrator (and barostat) and calls
// Context::reinitialize() (OpenMM reads a seed only when it builds a Context's kernels), so a
// walker is a pure function of its task; fast keeps the kernels and the noise stream. Both then
// set positions, box and velocities from the task. The Context's life (System, integrator,
// creation with platform fallback, re-arming) is in openmm_instance.cpp; running dynamics on it
// (a walker's segment with its failure recovery, the pre-equilibration) in openmm_segment.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "trails/config/engine_spec.h"
#include "trails/engines/engine.h"
#include "trails/engines/frame_check.h"

namespace OpenMM {
class Context;
class Integrator;
class MonteCarloBarostat;
class System;
}  // namespace OpenMM

namespace trails::engines::openmm::detail {

class OpenMMInstance final : public EngineInstance {
 public:
  // device_index: the slot's device when it has one, else engine.device_index (or none).
  OpenMMInstance(const config::OpenMMEngineConfig& config, std::string platform,
                 const std::string& system_xml, const std::string& integrator_xml, int n_atoms,
                 std::optional<int> device_index);
  ~OpenMMInstance() override;

  SegmentResult run(const SegmentTask& task) override;

  // engine.equilibrate: minimise, then equilibration_steps of dynamics; positions and box only.
  Configuration equilibrate(const Configuration& start, std::uint64_t seed);

 private:
  std::unique_lock<std::mutex> maybe_lock();

  void create_context();
  void seed_noise(int seed);
  // Creates the Context (seeded with `seed`) or re-arms it (re-seeded and rebuilt only when
  // bitwise), and loads the start state (minimised first when asked: recovery and
  // pre-equilibration).
  void arm(const Configuration& start, std::uint64_t seed, bool minimize);
  void recover(const Configuration& start, std::uint64_t seed);
  std::string integrate(const SegmentTask& task, SegmentResult& result);
  std::string validate(const SegmentTask& task) const;
  std::string describe_device();

  config::OpenMMEngineConfig config_;
  std::string platform_;  // may fall back from CUDA to CPU when the Context is created
  std::optional<int> device_index_;
  int n_atoms_;
  std::string host_;
  std::string visible_;
  std::string device_;  // where it runs and how it re-arms: the result's `device`
  bool fast_ = false;   // engine.reproducibility resolved for platform_ (set with the Context)
  std::unique_ptr<OpenMM::System> system_;
  std::unique_ptr<OpenMM::Integrator> integrator_;
  OpenMM::MonteCarloBarostat* barostat_ = nullptr;
  std::unique_ptr<OpenMM::Context> context_;
  // Every HarmonicBondForce bond and every constraint of the System, read once: each frame is
  // checked against them (docs/reliability.md, "Exploded frames"). Empty: nothing to check.
  std::vector<Bond> bonds_;
};

}  // namespace trails::engines::openmm::detail
