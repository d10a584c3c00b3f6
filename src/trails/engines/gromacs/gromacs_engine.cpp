// The GROMACS engine's system description and its instances (gromacs_engine.h).
#include "trails/engines/gromacs/gromacs_engine.h"

#include <fmt/format.h>

#include "trails/engines/build_engine.h"
#include "trails/engines/gromacs/gromacs_instance.h"
#include "trails/engines/gromacs/mdrun_command.h"
#include "trails/engines/gromacs/prepared_run.h"
#include "trails/engines/input_digest.h"
#include "trails/structure/structure_file.h"

namespace trails::engines::gromacs {

GromacsEngine::GromacsEngine(const config::GromacsSpec& spec, PreparedRun prepared)
    : spec_(spec), prepared_(std::make_shared<const PreparedRun>(std::move(prepared))) {
  const PreparedRun& p = *prepared_;
  tpr_ = std::make_shared<const std::string>(read_file_bytes(p.tpr));
  const int n = p.layout.n_atoms;
  start_.n_atoms = n;
  start_.spatial_dim = 3;
  start_.positions = p.positions;
  start_.box = p.box;
  system_.n_atoms = n;
  system_.spatial_dim = 3;
  system_.molecular = true;
  system_.topology = std::make_shared<const structure::Topology>(
      structure::read_structure(p.topology_pdb).topology);
  system_.topology_file = p.topology_pdb;
  system_.prepared_dir = p.dir;
  system_.reference_positions = p.positions;
  system_.box = p.box;
  system_.dt = spec_.dt;
  system_.time_unit = "ps";
  system_.length_unit = "nm";
}

EngineCapabilities GromacsEngine::capabilities() const {
  return {.continues_velocities = true, .uses_devices = uses_gpu(spec_.params)};
}

std::string GromacsEngine::describe() const {
  const auto ntomp = resolved_ntomp(spec_.params);
  return fmt::format("gromacs ({} atoms, {} mdrun -ntmpi {}{}, {} K, dt {} ps{})",
                     prepared_->layout.n_atoms, spec_.params.executable, spec_.params.mdrun_ntmpi,
                     ntomp ? fmt::format(" -ntomp {}", *ntomp) : "", spec_.temperature, spec_.dt,
                     spec_.npt ? ", NPT" : "");
}

std::unique_ptr<EngineInstance> GromacsEngine::make_instance(const Slot& slot) const {
  return std::make_unique<GromacsInstance>(spec_, prepared_, tpr_, slot);
}

}  // namespace trails::engines::gromacs

namespace trails::engines {

// The engines registry builds this room's engine through it (build_engine.h).
std::unique_ptr<Engine> build_engine(const config::GromacsSpec& spec,
                                     const std::filesystem::path& run_dir) {
  return std::make_unique<gromacs::GromacsEngine>(spec,
                                                  gromacs::prepare_gromacs_run(spec, run_dir));
}

}  // namespace trails::engines
