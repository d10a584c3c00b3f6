#include "trails/engines/registry.h"

#include <nlohmann/json.hpp>

#include "trails/core/error.h"
#include "trails/engines/build_engine.h"

namespace trails::engines {

std::unique_ptr<Engine> make_engine(const config::EngineSpec& spec,
                                    const std::filesystem::path& run_dir) {
  return std::visit([&](const auto& s) { return build_engine(s, run_dir); }, spec);
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
