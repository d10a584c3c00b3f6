#include "trails/engines/registry.h"

#include <nlohmann/json.hpp>

#include "trails/core/error.h"
#include "trails/engines/amber/amber_engine.h"
#include "trails/engines/builtin/builtin_engine.h"
#include "trails/engines/command/command_engine.h"
#include "trails/engines/gromacs/gromacs_engine.h"
#include "trails/engines/openmm/openmm_engine.h"
#include "trails/engines/openmm/prepared_system.h"

namespace trails::engines {
namespace {

std::unique_ptr<Engine> build(const config::BuiltinSpec& spec, const std::filesystem::path&) {
  return std::make_unique<builtin::BuiltinEngine>(spec);
}

std::unique_ptr<Engine> build(const config::OpenMMSpec& spec,
                              const std::filesystem::path& run_dir) {
  return std::make_unique<openmm::OpenMMEngine>(
      spec.params, openmm::prepare_openmm_system(spec, run_dir), spec.seed_base);
}

std::unique_ptr<Engine> build(const config::GromacsSpec& spec,
                              const std::filesystem::path& run_dir) {
  return std::make_unique<gromacs::GromacsEngine>(spec,
                                                  gromacs::prepare_gromacs_run(spec, run_dir));
}

std::unique_ptr<Engine> build(const config::CommandSpec& spec,
                              const std::filesystem::path& run_dir) {
  return std::make_unique<command::CommandEngine>(spec, run_dir);
}

std::unique_ptr<Engine> build(const config::AmberSpec& spec, const std::filesystem::path& run_dir) {
  return std::make_unique<amber::AmberEngine>(spec, run_dir);
}

}  // namespace

std::unique_ptr<Engine> make_engine(const config::EngineSpec& spec,
                                    const std::filesystem::path& run_dir) {
  return std::visit([&](const auto& s) { return build(s, run_dir); }, spec);
}

std::vector<std::uint8_t> worker_engine_setup(const config::EngineSpec& spec,
                                              const std::filesystem::path& run_dir) {
  const nlohmann::json setup = {{"spec", config::engine_spec_json(spec)},
                                {"run_dir", run_dir.string()}};
  return nlohmann::json::to_cbor(setup);
}

std::unique_ptr<Engine> make_engine_from_setup(std::span<const std::uint8_t> setup) {
  nlohmann::json j;
  std::filesystem::path run_dir;
  try {
    j = nlohmann::json::from_cbor(setup.begin(), setup.end());
    run_dir = j.at("run_dir").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw core::CorruptionError(std::string("worker engine setup: ") + e.what());
  }
  return make_engine(config::engine_spec_from_json(j.at("spec")), run_dir);
}

}  // namespace trails::engines
