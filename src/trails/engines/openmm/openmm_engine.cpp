// The OpenMM engine. One warm Context per instance; per walker: seed the integrator (and barostat),
// Context::reinitialize(), then positions, box and velocities from the task. OpenMM 7.7 reads an
// integrator's seed only when a Context's kernels are created, so this is the cheapest re-arm that
// keeps a walker a pure function of its task (measured in docs/engines.md).
#include "trails/engines/openmm/openmm_engine.h"

#include <chrono>
#include <cmath>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

#include <OpenMM.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "trails/core/error.h"
#include "trails/core/rng.h"
#include "trails/engines/openmm/context_table.h"
#include "trails/engines/openmm/platform.h"
#include "trails/structure/structure_file.h"

namespace trails::engines::openmm {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kAtmToBar = 1.01325;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The Reference platform draws its Gaussian noise from one process-wide generator, re-seeded
// whenever a Reference Context is (re)initialized. Two Reference walkers running at once would
// interleave draws, so Reference segments run one at a time (it is the testing platform).
std::mutex& reference_rng_mutex() {
  static std::mutex m;
  return m;
}

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

// Appends n Vec3 as doubles; false if any is not finite.
bool append_finite(const std::vector<OpenMM::Vec3>& v, std::vector<double>& out) {
  bool finite = true;
  for (const auto& p : v) {
    for (int k = 0; k < 3; ++k) {
      out.push_back(p[k]);
      finite = finite && std::isfinite(p[k]);
    }
  }
  return finite;
}

void append_box(const OpenMM::State& state, std::vector<double>& out) {
  OpenMM::Vec3 a, b, c;
  state.getPeriodicBoxVectors(a, b, c);
  for (const OpenMM::Vec3* v : {&a, &b, &c}) {
    for (int k = 0; k < 3; ++k) out.push_back((*v)[k]);
  }
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::InputError(path.string() + ": cannot read the prepared OpenMM file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class OpenMMInstance final : public EngineInstance {
 public:
  // device_index: the slot's device when it has one, else engine.device_index (or none).
  OpenMMInstance(const config::OpenMMEngineConfig& config, std::string platform,
                 const std::string& system_xml, const std::string& integrator_xml, int n_atoms,
                 std::optional<int> device_index)
      : config_(config),
        platform_(std::move(platform)),
        device_index_(device_index),
        n_atoms_(n_atoms),
        host_(host_name()),
        visible_(visible_devices()) {
    std::lock_guard<std::mutex> deserializing(deserialize_mutex());
    std::istringstream sys_in(system_xml);
    system_.reset(OpenMM::XmlSerializer::deserialize<OpenMM::System>(sys_in));
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

  ~OpenMMInstance() override {
    auto table = exclusive_context_table(platform_);
    context_.reset();
  }

  SegmentResult run(const SegmentTask& task) override;

  // engine.equilibrate: minimise, then equilibration_steps of dynamics; positions and box only.
  Configuration equilibrate(const Configuration& start, std::uint64_t seed) {
    std::unique_lock<std::mutex> lock = maybe_lock();
    arm(start, seed, /*minimize=*/true);
    auto table = shared_context_table(platform_);
    context_->getIntegrator().step(config_.equilibration_steps);
    const OpenMM::State s = context_->getState(OpenMM::State::Positions);
    Configuration out;
    out.n_atoms = n_atoms_;
    out.spatial_dim = 3;
    if (!append_finite(s.getPositions(), out.positions)) {
      throw core::EngineError(
          "engine.equilibrate: the pre-equilibration of the start structure blew up (non-finite "
          "coordinates); check the structure and engine.dt");
    }
    if (system_->usesPeriodicBoundaryConditions()) append_box(s, out.box);
    return out;
  }

 private:
  std::unique_lock<std::mutex> maybe_lock() {
    if (platform_ == "Reference") return std::unique_lock<std::mutex>(reference_rng_mutex());
    return {};
  }

  void create_context();
  // Seeds, creates or reinitializes the Context, and loads the start state (minimised first
  // when asked: recovery and pre-equilibration).
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
  std::string device_;
  std::unique_ptr<OpenMM::System> system_;
  std::unique_ptr<OpenMM::Integrator> integrator_;
  OpenMM::MonteCarloBarostat* barostat_ = nullptr;
  std::unique_ptr<OpenMM::Context> context_;
};

void OpenMMInstance::create_context() {
  auto props =
      platform_properties(platform_, config_.precision, device_index_, cpu_threads_from_env());
  for (int attempt = 0;; ++attempt) {
    try {
      // Per attempt: a CUDA Context that fell back to CPU is created under the CPU table lock.
      auto table = exclusive_context_table(platform_);
      context_ = std::make_unique<OpenMM::Context>(
          *system_, *integrator_, OpenMM::Platform::getPlatformByName(platform_), props);
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
  device_ = describe_device();
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

void OpenMMInstance::arm(const Configuration& start, std::uint64_t seed, bool minimize) {
  const int s = openmm_seed(seed);
  set_integrator_seed(*integrator_, s);
  if (barostat_) barostat_->setRandomNumberSeed(s);
  if (!context_) {
    create_context();  // takes the table itself, per attempt
  } else {
    auto table = exclusive_context_table(platform_);
    context_->reinitialize(false);  // the new seeds reach the kernels only this way
  }
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
    context_->setVelocitiesToTemperature(config_.temperature, s);
  }
  context_->setTime(0.0);
  context_->setStepCount(0);
}

// Failure recovery (Trails-MD): from the minimised start, optionally equilibrate, then fresh
// velocities and a clean clock for the re-run of production.
void OpenMMInstance::recover(const Configuration& start, std::uint64_t seed) {
  arm(start, seed, /*minimize=*/true);
  if (config_.equilibrate) {
    auto table = shared_context_table(platform_);
    integrator_->step(config_.equilibration_steps);
    context_->setVelocitiesToTemperature(config_.temperature, openmm_seed(seed));
    context_->setTime(0.0);
    context_->setStepCount(0);
  }
}

std::string OpenMMInstance::validate(const SegmentTask& task) const {
  const auto n = static_cast<std::size_t>(3 * n_atoms_);
  if (task.steps <= 0) return fmt::format("steps must be > 0 (got {})", task.steps);
  if (task.stride <= 0) return fmt::format("stride must be > 0 (got {})", task.stride);
  if (task.start.positions.size() != n) {
    return fmt::format("start configuration has {} coordinates but the system has {} atoms ({})",
                       task.start.positions.size(), n_atoms_, n);
  }
  if (!task.start.velocities.empty() && task.start.velocities.size() != n) {
    return fmt::format("start velocities have {} components, expected {}",
                       task.start.velocities.size(), n);
  }
  if (!task.start.box.empty() && task.start.box.size() != 9) {
    return fmt::format("start box has {} values, expected 9", task.start.box.size());
  }
  for (double x : task.start.positions) {
    if (!std::isfinite(x)) return "start configuration has a non-finite coordinate";
  }
  return {};
}

// One production attempt from an armed Context. Returns "" or why the walker failed.
std::string OpenMMInstance::integrate(const SegmentTask& task, SegmentResult& result) {
  const bool periodic = system_->usesPeriodicBoundaryConditions();
  const std::int64_t n_frames = task.steps / task.stride;
  result.frames.clear();
  result.frame_boxes.clear();
  result.frames.reserve(static_cast<std::size_t>(n_frames * 3 * n_atoms_));
  if (periodic) result.frame_boxes.reserve(static_cast<std::size_t>(n_frames * 9));
  for (std::int64_t f = 1; f <= n_frames; ++f) {
    auto table = shared_context_table(platform_);
    const auto t_step = Clock::now();
    integrator_->step(static_cast<int>(task.stride));
    const auto t_extract = Clock::now();
    result.integrate_s += std::chrono::duration<double>(t_extract - t_step).count();
    const OpenMM::State s = context_->getState(OpenMM::State::Positions);
    const bool finite = append_finite(s.getPositions(), result.frames);
    if (periodic) append_box(s, result.frame_boxes);
    result.extract_s += seconds_since(t_extract);
    if (!finite) return fmt::format("coordinates became non-finite by step {}", f * task.stride);
  }
  if (const std::int64_t rest = task.steps - n_frames * task.stride; rest > 0) {
    auto table = shared_context_table(platform_);
    const auto t_step = Clock::now();
    integrator_->step(static_cast<int>(rest));
    result.integrate_s += seconds_since(t_step);
  }
  auto table = shared_context_table(platform_);
  const auto t_final = Clock::now();
  const OpenMM::State s = context_->getState(OpenMM::State::Positions | OpenMM::State::Velocities);
  Configuration& out = result.final_state;
  out = Configuration{};
  out.n_atoms = n_atoms_;
  out.spatial_dim = 3;
  const bool finite = append_finite(s.getPositions(), out.positions) &&
                      append_finite(s.getVelocities(), out.velocities);
  if (periodic) append_box(s, out.box);
  result.extract_s += seconds_since(t_final);
  if (!finite) return fmt::format("coordinates became non-finite by step {}", task.steps);
  result.n_frames = n_frames;
  return {};
}

SegmentResult OpenMMInstance::run(const SegmentTask& task) {
  SegmentResult result;
  result.task_id = task.task_id;
  result.n_atoms = n_atoms_;
  result.spatial_dim = 3;
  result.host = host_;
  result.visible_devices = visible_;
  const std::string who = fmt::format("walker {} of iteration {}", task.walker, task.iteration);
  if (std::string problem = validate(task); !problem.empty()) {
    result.error = who + ": " + problem;
    return result;
  }
  std::unique_lock<std::mutex> lock = maybe_lock();
  std::string failure;
  const auto attempt = [&](bool recovering) {
    result.integrate_s = result.extract_s = 0.0;
    try {
      const auto t_arm = Clock::now();
      if (recovering) {
        recover(task.start, task.seed);
      } else {
        arm(task.start, task.seed, /*minimize=*/false);
      }
      result.startup_s += seconds_since(t_arm);
      failure = integrate(task, result);
    } catch (const OpenMM::OpenMMException& e) {
      failure = e.what();
    } catch (const std::exception& e) {
      failure = e.what();
    }
    return failure.empty();
  };
  bool ok = attempt(false);
  // Exploration walkers (fresh velocities) are recovered by minimising and re-running, as in
  // Trails-MD; a walker that inherited velocities (kinetics) is not: its dynamics would change.
  if (!ok && task.start.velocities.empty()) {
    const std::string first = failure;
    ok = attempt(true);
    if (ok) {
      result.recovered = true;
      spdlog::warn("{}: {}; recovered by energy minimisation and a re-run", who, first);
    } else {
      failure = first + "; the re-run after energy minimisation failed too: " + failure;
    }
  }
  result.platform = platform_;
  result.device = device_;
  if (!ok) {
    result.error = fmt::format(
        "{}: OpenMM: {}; reduce engine.dt (currently {} ps) or check the "
        "start structure",
        who, failure, config_.dt);
    result.frames.clear();
    result.frame_boxes.clear();
    result.n_frames = 0;
    return result;
  }
  result.status = SegmentStatus::Ok;
  return result;
}

}  // namespace

int openmm_seed(std::uint64_t seed) {
  const auto s = static_cast<int>(seed % 2147483647ULL);
  return s == 0 ? 2147483647 : s;
}

OpenMMEngine::OpenMMEngine(const config::OpenMMEngineConfig& config, PreparedSystem prepared,
                           std::uint64_t seed_base)
    : config_(config), prepared_(std::move(prepared)) {
  std::string warning;
  platform_ = resolve_platform(config_.platform_name, &warning);
  if (!warning.empty()) spdlog::warn("{}", warning);
  system_xml_ = read_file(prepared_.system_xml);
  if (prepared_.integrator_xml) integrator_xml_ = read_file(*prepared_.integrator_xml);
  start_.n_atoms = prepared_.n_atoms;
  start_.spatial_dim = 3;
  start_.positions = prepared_.positions;
  start_.box = prepared_.box;
  if (config_.equilibrate) start_ = equilibrated_start(seed_base);
  system_.n_atoms = prepared_.n_atoms;
  system_.spatial_dim = 3;
  system_.molecular = true;
  if (!prepared_.topology_pdb.empty()) {
    system_.topology = std::make_shared<const structure::Topology>(
        structure::read_structure(prepared_.topology_pdb).topology);
    system_.topology_file = prepared_.topology_pdb;
  }
  system_.prepared_dir = prepared_.dir;
  system_.reference_positions = prepared_.positions;
  system_.box = prepared_.box;
  system_.dt = config_.dt;
  system_.time_unit = "ps";
  system_.length_unit = "nm";
}

std::string OpenMMEngine::describe() const {
  return fmt::format("openmm ({} atoms, {} platform, {} K, dt {} ps{})", prepared_.n_atoms,
                     platform_, config_.temperature, config_.dt, config_.npt ? ", NPT" : "");
}

std::unique_ptr<EngineInstance> OpenMMEngine::make_instance(const Slot& slot) const {
  const std::optional<int> device = slot.device ? slot.device : config_.device_index;
  return std::make_unique<OpenMMInstance>(config_, platform_, system_xml_, integrator_xml_,
                                          prepared_.n_atoms, device);
}

// The pre-equilibrated start, cached next to the prepared system (keyed by seed and settings)
// so a resumed campaign starts from the same bits without re-running it.
Configuration OpenMMEngine::equilibrated_start(std::uint64_t seed_base) const {
  const std::uint64_t seed = core::Rng::stream(seed_base, "openmm-equilibrate").next_u64();
  const std::string key = fmt::format("{:016x}-{}-{}-{}-{}", seed, platform_, config_.temperature,
                                      config_.dt, config_.equilibration_steps);
  const auto cache = prepared_.dir / ("equilibrated-" + key + ".json");
  if (std::filesystem::exists(cache)) {
    const auto j = nlohmann::json::parse(read_file(cache));
    Configuration c = start_;
    c.positions = j.at("positions").get<std::vector<double>>();
    c.box = j.at("box").get<std::vector<double>>();
    return c;
  }
  OpenMMInstance instance(config_, platform_, system_xml_, integrator_xml_, prepared_.n_atoms,
                          config_.device_index);
  Configuration c = instance.equilibrate(start_, seed);
  const auto tmp = cache.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << nlohmann::json{{"positions", c.positions}, {"box", c.box}}.dump();
  }
  std::filesystem::rename(tmp, cache);
  return c;
}

}  // namespace trails::engines::openmm
