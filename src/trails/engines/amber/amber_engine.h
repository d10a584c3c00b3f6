// The Amber engine (`engine.md_engine: amber`): pmemd or sander per segment, in a private walker
// directory (engines/external/walker_directory.h): the walker's start as a NetCDF restart (full
// precision, velocities when it continues them), the rendered mdin (mdin.h), then
// `EXE -O -i mdin -o mdout -p PRMTOP -c start.ncrst -r end.ncrst -x traj.nc|traj.mdcrd
// -inf mdinfo [-AllowSmallBox] EXTRA…` (amber_command_line); frames from the trajectory
// (steps / stride, no t = 0 frame) and the final state from end.ncrst. A failing program is a
// failed walker with its stderr and the tail of mdout (docs/engines.md, "The Amber engine").
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "trails/config/engine_spec.h"
#include "trails/engines/engine.h"

namespace trails::engines::amber {

// Whether `executable` is a GPU build of pmemd: its name contains `cuda` (pmemd.cuda,
// pmemd.cuda_SPFP, pmemd.cuda.MPI, ...). Such a program runs on the slot's device
// (CUDA_VISIBLE_DEVICES), so the engine uses devices, and it gets -AllowSmallBox.
bool runs_on_gpu(const std::string& executable);

// The CUDA_VISIBLE_DEVICES a walker's program gets for the slot's device: the slot binds a
// logical index, a position in the CUDA_VISIBLE_DEVICES this process inherited (docs/execution.md,
// "Devices and packing"), so the program gets that position's token (5,7 and device 1: "7"),
// or the index itself when the variable is unset or shorter.
std::string program_visible_devices(int device);

// The program's argument vector for one segment run in its walker directory (relative names).
std::vector<std::string> amber_command_line(const config::AmberSpec& spec,
                                            const std::string& executable);

class AmberEngine final : public Engine {
 public:
  // Checks the executable (ConfigError naming engine.amber_executable), reads the prmtop and
  // the start coordinates, and renders the mdin template once (InputError naming the file), so
  // input errors surface before any MD. Writes RUN_DIR/prepared/amber-topology.pdb (exports).
  AmberEngine(const config::AmberSpec& spec, const std::filesystem::path& run_dir);

  std::string name() const override { return "amber"; }
  using Engine::make_instance;
  std::unique_ptr<EngineInstance> make_instance(const Slot& slot) const override;
  Configuration default_start() const override;
  const EngineSystem& system() const override { return system_; }
  EngineCapabilities capabilities() const override;
  std::string describe() const override;

 private:
  config::AmberSpec spec_;
  std::filesystem::path run_dir_;
  std::string executable_;     // as found in PATH
  std::string mdin_template_;  // empty: the built-in mdin
  bool periodic_ = true;
  EngineSystem system_;
};

}  // namespace trails::engines::amber
