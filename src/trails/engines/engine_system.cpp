#include "trails/engines/engine_system.h"

namespace trails::engines {

nlohmann::json EngineSystem::to_json() const {
  return {
      {"n_atoms", n_atoms},     {"spatial_dim", spatial_dim}, {"molecular", molecular},  {"dt", dt},
      {"time_unit", time_unit}, {"length_unit", length_unit}, {"periodic", !box.empty()}};
}

}  // namespace trails::engines
