// The OpenMM engine: the prepared system read once (System and integrator XML, start structure,
// topology), the EngineSystem it reports, the cached pre-equilibrated start, and one
// OpenMMInstance per slot (openmm_instance.h).
#include "trails/engines/openmm/openmm_engine.h"

#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "trails/core/error.h"
#include "trails/core/rng.h"
#include "trails/engines/build_engine.h"
#include "trails/engines/openmm/openmm_instance.h"
#include "trails/engines/openmm/platform.h"
#include "trails/engines/openmm/prepared_system.h"
#include "trails/engines/openmm/serialized_version.h"
#include "trails/structure/structure_file.h"

namespace trails::engines::openmm {
namespace {

using detail::OpenMMInstance;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::InputError(path.string() + ": cannot read the prepared OpenMM file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
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
  // Once here, so a System this OpenMM cannot read is an input error before any walker runs.
  check_deserializable(system_xml_, prepared_.system_xml, false, prepared_.openmm_version);
  if (prepared_.integrator_xml) {
    check_deserializable(integrator_xml_, *prepared_.integrator_xml, true,
                         prepared_.openmm_version);
  }
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
  const std::string velocities =
      config_.velocity_temperature
          ? fmt::format(" (velocities drawn at {} K)", *config_.velocity_temperature)
          : "";
  return fmt::format("openmm ({} atoms, {} platform, {} K{}, dt {} ps{})", prepared_.n_atoms,
                     platform_, config_.temperature, velocities, config_.dt,
                     config_.npt ? ", NPT" : "");
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

namespace trails::engines {

// The engines registry builds this room's engine through it (build_engine.h).
std::unique_ptr<Engine> build_engine(const config::OpenMMSpec& spec,
                                     const std::filesystem::path& run_dir) {
  return std::make_unique<openmm::OpenMMEngine>(
      spec.params, openmm::prepare_openmm_system(spec, run_dir), spec.seed_base);
}

}  // namespace trails::engines
