// The mdrun command line of one walker (Trails-MD's plus Trails' own files and -nsteps;
// docs/engines.md, "The GROMACS engine"):
// `gmx mdrun -s walker.tpr -o traj.trr -c confout.gro -e ener.edr -g md.log -cpo state.cpt
// -nsteps N -ntmpi n [-ntomp m] [-nb|-pme|-update|-bonded x] [-gpu_id d] [-pin x
// [-pinoffset k -pinstride 1]] extra...`. -ntomp: the key, else $OMP_NUM_THREADS, else
// $SLURM_CPUS_PER_TASK, else left to mdrun. With -pin on and a known thread count, slot k pins
// its threads from core k * ntmpi * ntomp, so packed walkers do not share cores; -gpu_id is the
// slot's device when any task is placed on the GPU (docs/engines.md, "Threads, pinning, GPUs").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trails/config/engine_spec.h"
#include "trails/engines/slot.h"

namespace trails::engines::gromacs {

// The resolved -ntomp (key, then the two environment variables), or none.
std::optional<int> resolved_ntomp(const config::GromacsEngineConfig& config);

std::vector<std::string> mdrun_command(const config::GromacsEngineConfig& config, const Slot& slot,
                                       std::int64_t steps);

// Whether any of -nb/-pme/-update/-bonded asks for the GPU.
bool uses_gpu(const config::GromacsEngineConfig& config);

// Where a walker ran, as its result records it: "GPU device D (-gpu_id D)" when a task is placed
// on the slot's GPU, in the "<kind> device <index>" form the device pool's binding check reads
// (docs/execution.md, "Binding check"), else "CPU (-ntmpi n[ -ntomp m])".
std::string device_record(const config::GromacsEngineConfig& config, const Slot& slot);

}  // namespace trails::engines::gromacs
