// The OpenMM instance's Context (openmm_instance.h): the System and integrator it is built on,
// its creation with the platform fallbacks, and re-arming it for a walker.
#include "trails/engines/openmm/openmm_instance.h"

#include <mutex>
#include <sstream>

#include <OpenMM.h>
#include <spdlog/spdlog.h>

#include "trails/core/error.h"
#include "trails/engines/host.h"
#include "trails/engines/openmm/context_builds.h"
#include "trails/engines/openmm/context_table.h"
#include "trails/engines/openmm/openmm_engine.h"
#include "trails/engines/openmm/platform.h"

namespace trails::engines::openmm::detail {
namespace {

constexpr double kAtmToBar = 1.01325;

// Workers deserialize their Systems one at a time. Guard against a race seen once with four
// concurrent instances (every CPU Context then failed with "HarmonicAngleForce: angle must be
// between 0 and pi", i.e. a System read wrongly); not reproduced since, cause unconfirmed. It
// costs nothing that matters: once per worker.
std::mutex& deserialize_mutex() {
  static std::mutex m;
  return m;
}

bool set_integrator_seed(OpenMM::Integrator& integrator, int seed) {
  if (auto* i = dynamic_cast<OpenMM::LangevinMiddleIntegrator*>(&integrator)) {
    i->setRandomNumberSeed(seed);
  } else if (auto* i = dynamic_cast<OpenMM::LangevinIntegrator*>(&integrator)) {
    i->setRandomNumberSeed(seed);
  } else if (auto* i = dynamic_cast<OpenMM::BrownianIntegrator*>(&integrator)) {
    i->setRandomNumberSeed(seed);
  } else if (auto* i = dynamic_cast<OpenMM::VariableLangevinIntegrator*>(&integrator)) {
    i->setRandomNumberSeed(seed);
  } else if (auto* i = dynamic_cast<OpenMM::CustomIntegrator*>(&integrator)) {
    i->setRandomNumberSeed(seed);
  } else {
    return false;  // a deterministic integrator (Verlet, ...): nothing to seed
  }
  return true;
}

bool contains_any(const std::string& s, std::initializer_list<const char*> needles) {
  for (const char* n : needles) {
    if (s.find(n) != std::string::npos) return true;
  }
  return false;
}

std::vector<OpenMM::Vec3> to_vec3(const std::vector<double>& flat) {
  std::vector<OpenMM::Vec3> v(flat.size() / 3);
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = OpenMM::Vec3(flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]);
  }
  return v;
}

// The bonds whose lengths the frame check watches (docs/reliability.md, "Exploded frames"):
// HarmonicBondForce bonds at their length parameter, constraints at their distance.
std::vector<Bond> bonds_of(const OpenMM::System& system) {
  std::vector<Bond> bonds;
  for (int f = 0; f < system.getNumForces(); ++f) {
    const auto* force = dynamic_cast<const OpenMM::HarmonicBondForce*>(&system.getForce(f));
    if (force == nullptr) continue;
    for (int b = 0; b < force->getNumBonds(); ++b) {
      Bond bond;
      double k = 0.0;
      force->getBondParameters(b, bond.i, bond.j, bond.r0, k);
      bonds.push_back(bond);
    }
  }
  for (int c = 0; c < system.getNumConstraints(); ++c) {
    Bond bond;
    system.getConstraintParameters(c, bond.i, bond.j, bond.r0);
    bonds.push_back(bond);
  }
  return bonds;
}

}  // namespace

OpenMMInstance::OpenMMInstance(const config::OpenMMEngineConfig& config, std::string platform,
                               const std::string& system_xml, const std::string& integrator_xml,
                               int n_atoms, std::optional<int> device_index)
    : config_(config),
      platform_(std::move(platform)),
      device_index_(device_index),
      n_atoms_(n_atoms),
      host_(host_name()),
      visible_(visible_devices()) {
  std::lock_guard<std::mutex> deserializing(deserialize_mutex());
  std::istringstream sys_in(system_xml);
  system_.reset(OpenMM::XmlSerializer::deserialize<OpenMM::System>(sys_in));
  bonds_ = bonds_of(*system_);
  if (config_.npt) {
    if (!system_->usesPeriodicBoundaryConditions()) {
      throw core::ConfigError(
          "engine.npt: the system has no periodic box, so it cannot run at constant pressure; "
          "set engine.npt: false or give a structure with a box");
    }
    barostat_ = new OpenMM::MonteCarloBarostat(config_.pressure * kAtmToBar, config_.temperature,
                                               config_.barostat_interval);
    system_->addForce(barostat_);  // owned by the System
  }
  if (integrator_xml.empty()) {
    auto* langevin =
        new OpenMM::LangevinMiddleIntegrator(config_.temperature, config_.friction, config_.dt);
    integrator_.reset(langevin);
  } else {
    std::istringstream in(integrator_xml);
    integrator_.reset(OpenMM::XmlSerializer::deserialize<OpenMM::Integrator>(in));
  }
  integrator_->setConstraintTolerance(config_.constraint_tolerance);
}

OpenMMInstance::~OpenMMInstance() {
  auto table = exclusive_context_table(platform_);
  context_.reset();
}

void OpenMMInstance::create_context() {
  auto props =
      platform_properties(platform_, config_.precision, device_index_, cpu_threads_from_env());
  for (int attempt = 0;; ++attempt) {
    try {
      // Per attempt: a CUDA Context that fell back to CPU is created under the CPU table lock.
      ContextBuildGate gate(platform_);
      auto table = exclusive_context_table(platform_);
      context_ = std::make_unique<OpenMM::Context>(
          *system_, *integrator_, OpenMM::Platform::getPlatformByName(platform_), props);
      gate.built();
      break;
    } catch (const OpenMM::OpenMMException& e) {
      const std::string what = e.what();
      if (attempt > 2) throw;
      if (platform_ == "CUDA" && contains_any(what, {"CUDA_ERROR_NO_DEVICE", "could not be loaded",
                                                     "no CUDA-capable device", "invalid device"})) {
        spdlog::warn("OpenMM CUDA platform unusable here ({}); falling back to the CPU platform",
                     what);
        platform_ = "CPU";
        props =
            platform_properties(platform_, config_.precision, std::nullopt, cpu_threads_from_env());
      } else if (!props.empty() &&
                 contains_any(what, {"roperty", "Illegal value", "DeviceIndex", "Precision"})) {
        spdlog::warn("OpenMM {} platform rejected the properties ({}); retrying with defaults",
                     platform_, what);
        props.clear();
      } else {
        throw;
      }
    }
  }
  auto table = shared_context_table(platform_);  // CPU property values live in the table
  fast_ = fast_rearm(config_.reproducibility, platform_);
  device_ = describe_device() + (fast_ ? "; re-arm fast" : "; re-arm bitwise");
}

std::string OpenMMInstance::describe_device() {
  const OpenMM::Platform& p = context_->getPlatform();
  const auto prop = [&](const char* name) -> std::string {
    try {
      return p.getPropertyValue(*context_, name);
    } catch (const OpenMM::OpenMMException&) {
      return "";
    }
  };
  if (platform_ == "CPU") return "CPU threads=" + prop("Threads");
  if (platform_ == "CUDA") return "CUDA device " + prop("DeviceIndex") + " " + prop("DeviceName");
  if (platform_ == "OpenCL") {
    return "OpenCL device " + prop("OpenCLDeviceIndex") + " " + prop("OpenCLDeviceName");
  }
  if (platform_ == "HIP") return "HIP device " + prop("HipDeviceIndex") + " " + prop("DeviceName");
  return platform_;
}

void OpenMMInstance::seed_noise(int seed) {
  set_integrator_seed(*integrator_, seed);
  if (barostat_) barostat_->setRandomNumberSeed(seed);
}

void OpenMMInstance::arm(const Configuration& start, std::uint64_t seed, bool minimize) {
  const int s = openmm_seed(seed);
  if (!context_) {
    seed_noise(s);
    create_context();  // takes the table itself, per attempt
  } else if (!fast_) {
    seed_noise(s);
    auto table = exclusive_context_table(platform_);
    context_->reinitialize(false);  // the new seeds reach the kernels only this way
    count_context_rebuild();
  }  // fast: the kernels stay, and the thermostat's and barostat's noise continue their streams
  auto table = shared_context_table(platform_);
  if (start.box.size() == 9) {
    const auto b = to_vec3(start.box);
    context_->setPeriodicBoxVectors(b[0], b[1], b[2]);
  }
  context_->setPositions(to_vec3(start.positions));
  if (minimize) OpenMM::LocalEnergyMinimizer::minimize(*context_);
  if (!start.velocities.empty() && !minimize) {
    context_->setVelocities(to_vec3(start.velocities));
  } else {
    // Fresh velocities: at the swarm's velocity temperature when it differs from the
    // thermostat's (docs/swarm.md, "Temperatures"), else at the thermostat's.
    context_->setVelocitiesToTemperature(config_.velocity_temperature.value_or(config_.temperature),
                                         s);
  }
  context_->setTime(0.0);
  context_->setStepCount(0);
}

}  // namespace trails::engines::openmm::detail
