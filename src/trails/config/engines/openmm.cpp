// The OpenMM engine's module (engine_module.h; docs/engines.md).
#include "trails/config/engines/engine_module.h"
#include "trails/config/key_row.h"

namespace trails::config::detail {
namespace {

using json = nlohmann::json;

// Its rows are still in the shared table (schema.cpp); they move here as the amber and command
// modules' did.
std::vector<KeySpec> no_own_keys() { return {}; }

EngineSpec openmm_spec(const CampaignConfig& c) {
  OpenMMSpec spec;
  spec.params = c.engine.openmm;
  spec.inputs = {c.system.conf_file,           c.system.top_file,
                 c.system.system_file,         c.system.forcefield,
                 c.engine.gromacs_include_dir, c.engine.python};
  spec.seed_base = c.engine_seed_base();
  return spec;
}

void openmm_values(const CampaignConfig& c, bool, json& j) {
  json& e = j["engine"];
  const OpenMMEngineConfig& o = c.engine.openmm;
  md_block_values(c, j);
  e["platform_name"] = o.platform_name;
  e["precision"] = o.precision;
  e["equilibrate"] = o.equilibrate;
  // Only when set, so the digests of runs written before the key stay as they were.
  if (o.reproducibility != Reproducibility::Auto) {
    e["reproducibility"] = reproducibility_name(o.reproducibility);
  }
  e["gromacs_include_dir"] = value_json(c.engine.gromacs_include_dir);
  j["system"]["conf_file"] = value_json(c.system.conf_file);
  j["system"]["top_file"] = value_json(c.system.top_file);
  j["system"]["system_file"] = value_json(c.system.system_file);
  j["system"]["forcefield"] = c.system.forcefield;
  j["cvs"] = c.cvs;
  if (c.system.initial_trajectory) {  // only when set, so earlier digests stay as they were
    j["system"]["initial_trajectory"] = c.system.initial_trajectory->string();
  }
  if (c.system.project_file) {  // the path, not the module's content (docs/cvs.md)
    j["system"]["project_file"] = c.system.project_file->string();
  }
  if (c.system.trajectory_topology_file) {  // only when set (earlier digests unchanged)
    j["system"]["trajectory_topology_file"] = c.system.trajectory_topology_file->string();
  }
}

}  // namespace

const EngineModule& openmm_engine_module() {
  static const EngineModule module{"openmm", no_own_keys, nullptr, openmm_spec, openmm_values};
  return module;
}

}  // namespace trails::config::detail
