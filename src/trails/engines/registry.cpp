#include "trails/engines/registry.h"

#include "trails/engines/builtin/builtin_engine.h"
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

}  // namespace

std::unique_ptr<Engine> make_engine(const config::EngineSpec& spec,
                                    const std::filesystem::path& run_dir) {
  return std::visit([&](const auto& s) { return build(s, run_dir); }, spec);
}

}  // namespace trails::engines
