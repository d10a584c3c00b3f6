#include "trails/report/potential_from_meta.h"

#include <algorithm>

namespace trails::report {
namespace {

const nlohmann::json* engine_block(const store::RunMeta& meta) {
  const auto& cfg = meta.effective_config;
  if (!cfg.is_object() || !cfg.contains("engine") || !cfg["engine"].is_object()) return nullptr;
  return &cfg["engine"];
}

}  // namespace

std::unique_ptr<engines::builtin::Potential> potential_from_meta(const store::RunMeta& meta) {
  const auto* engine = engine_block(meta);
  if (engine == nullptr || engine->value("md_engine", "") != "builtin") return nullptr;
  static const std::pair<const char*, config::Potential> names[] = {
      {"double_well", config::Potential::DoubleWell}, {"muller_brown", config::Potential::MullerBrown},
      {"three_well", config::Potential::ThreeWell},   {"harmonic", config::Potential::Harmonic},
      {"biased_walk", config::Potential::BiasedWalk}};
  config::BuiltinEngineConfig c;
  const std::string name = engine->value("potential", "muller_brown");
  const auto it = std::find_if(std::begin(names), std::end(names),
                               [&](const auto& p) { return name == p.first; });
  if (it == std::end(names)) return nullptr;
  c.potential = it->second;
  c.dimension = engine->value("dimension", 2);
  return engines::builtin::make_potential(c);
}

double potential_span(const store::RunMeta& meta) {
  const auto* engine = engine_block(meta);
  const double kT = engine != nullptr ? engine->value("kT", 1.0) : 1.0;
  return 10.0 * kT;
}

}  // namespace trails::report
