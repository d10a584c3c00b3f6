// The GROMACS engine's module (engine_module.h; docs/engines.md, "The GROMACS engine").
#include <filesystem>

#include "trails/config/engines/engine_module.h"
#include "trails/config/key_row.h"

namespace trails::config::detail {
namespace {

using json = nlohmann::json;

// Its rows are still in the shared table (schema.cpp); they move here as the amber and command
// modules' did.
std::vector<KeySpec> no_own_keys() { return {}; }

EngineSpec gromacs_spec(const CampaignConfig& c) {
  GromacsSpec spec;
  spec.params = c.engine.gromacs;
  // check_gromacs_inputs (engine_checks.cpp) made both required.
  spec.conf_file = c.system.conf_file.value_or(std::filesystem::path());
  spec.top_file = c.system.top_file.value_or(std::filesystem::path());
  spec.mdp_template = c.system.system_file;
  spec.include_dir = c.engine.gromacs_include_dir;
  spec.files = c.walker_files();
  spec.timeout_s = md_timeout_from_environment();
  spec.temperature = c.engine.md.temperature;
  spec.pressure = c.engine.md.pressure;
  spec.npt = c.engine.md.npt;
  spec.dt = c.engine.md.dt;
  spec.steps = c.spawning.step;
  spec.stride = c.spawning.stride;
  return spec;
}

// All of them can change the frames (thread counts included, unless -reprod is given), so all
// are result-relevant.
void gromacs_values(const CampaignConfig& c, bool all, json& j) {
  json& e = j["engine"];
  const GromacsEngineConfig& g = c.engine.gromacs;
  md_block_values(c, j);
  e["gromacs_executable"] = g.executable;
  e["gromacs_include_dir"] = value_json(c.engine.gromacs_include_dir);
  e["gromacs_mdrun_ntmpi"] = g.mdrun_ntmpi;
  e["gromacs_mdrun_ntomp"] = value_json(g.mdrun_ntomp);
  e["gromacs_mdrun_nb"] = value_json(g.mdrun_nb);
  e["gromacs_mdrun_pme"] = value_json(g.mdrun_pme);
  e["gromacs_mdrun_update"] = value_json(g.mdrun_update);
  e["gromacs_mdrun_bonded"] = value_json(g.mdrun_bonded);
  e["gromacs_mdrun_pin"] = value_json(g.mdrun_pin);
  e["gromacs_mdrun_extra_args"] = g.mdrun_extra_args;
  e["gromacs_grompp_maxwarn"] = g.grompp_maxwarn;
  j["system"]["conf_file"] = value_json(c.system.conf_file);
  j["system"]["top_file"] = value_json(c.system.top_file);
  j["system"]["system_file"] = value_json(c.system.system_file);
  j["cvs"] = c.cvs;
  if (c.system.trajectory_topology_file) {
    j["system"]["trajectory_topology_file"] = c.system.trajectory_topology_file->string();
  }
  if (c.system.project_file) j["system"]["project_file"] = c.system.project_file->string();
  if (all) {  // where walkers run, not what they compute
    j["execution"]["scratch"] = value_json(c.execution.scheduler.scratch);
    e["keep_walker_files"] = c.engine.keep_walker_files;
  }
}

}  // namespace

const EngineModule& gromacs_engine_module() {
  static const EngineModule module{"gromacs", no_own_keys, nullptr, gromacs_spec, gromacs_values};
  return module;
}

}  // namespace trails::config::detail
