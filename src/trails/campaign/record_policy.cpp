#include "trails/campaign/record_policy.h"

#include "trails/core/error.h"
#include "trails/structure/selection.h"
#include "trails/structure/structure_file.h"

namespace trails::campaign {

store::RecordPolicy make_record_policy(const config::CampaignConfig& config,
                                       const engines::Engine& engine) {
  store::RecordPolicy policy;
  policy.float32 = config.output.float32;
  policy.position_precision = config.output.position_precision;
  if (!config.output.record_selection) return policy;
  // Asked of the engine, never by its name (docs/architecture.md, "Engines").
  const engines::EngineSystem& system = engine.system();
  if (!engine.capabilities().records_atom_selection || system.topology_file.empty()) {
    throw core::ConfigError("output.record_selection: the " + config.engine.md_engine +
                            " system has no topology to select atoms from; remove the key");
  }
  const auto top = structure::read_structure(system.topology_file);
  policy.atoms = structure::select_nonempty(top.topology, *config.output.record_selection,
                                            "output.record_selection");
  // Every atom selected: the shards are what they would be without a selection.
  if (static_cast<int>(policy.atoms.size()) == top.topology.n_atoms()) policy.atoms.clear();
  return policy;
}

}  // namespace trails::campaign
