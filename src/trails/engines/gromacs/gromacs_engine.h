// The GROMACS engine (`engine.md_engine: gromacs`), through the gmx program. One grompp per
// campaign (prepared_run.h); per walker, in a private scratch directory: the campaign's run input
// with the walker's start state and seed patched in (tpr_patch.h), one `gmx mdrun`, and the TRR
// read back at full precision (trajio/trr.h). Frames: steps/stride, the t = 0 frame GROMACS writes
// is dropped, as the engine contract (segment.h) has it; the final state (positions, velocities,
// box) is the TRR's last frame, so steps must be a multiple of stride. A failing mdrun is a
// failed walker whose error quotes the end of md.log and keeps the walker's directory.
#pragma once

#include <memory>
#include <string>

#include "trails/config/engine_spec.h"
#include "trails/engines/engine.h"
#include "trails/engines/gromacs/prepared_run.h"

namespace trails::engines::gromacs {

class GromacsEngine final : public Engine {
 public:
  GromacsEngine(const config::GromacsSpec& spec, PreparedRun prepared);

  std::string name() const override { return "gromacs"; }
  using Engine::make_instance;
  std::unique_ptr<EngineInstance> make_instance(const Slot& slot) const override;
  Configuration default_start() const override { return start_; }
  const EngineSystem& system() const override { return system_; }
  EngineCapabilities capabilities() const override;
  std::string describe() const override;

  const PreparedRun& prepared() const { return *prepared_; }

 private:
  config::GromacsSpec spec_;
  std::shared_ptr<const PreparedRun> prepared_;  // shared with the instances
  std::shared_ptr<const std::string> tpr_;       // the campaign's run input bytes
  Configuration start_;
  EngineSystem system_;
};

}  // namespace trails::engines::gromacs
