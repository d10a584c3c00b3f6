// One worker slot of the GROMACS engine. It holds nothing between walkers but the shared run
// input bytes (a new mdrun process per walker), so re-arming equals a fresh instance by
// construction; run() never throws for a walker failure.
#pragma once

#include <memory>
#include <string>

#include "trails/config/engine_spec.h"
#include "trails/engines/engine.h"
#include "trails/engines/external/walker_directory.h"
#include "trails/engines/gromacs/prepared_run.h"

namespace trails::engines::gromacs {

class GromacsInstance final : public EngineInstance {
 public:
  GromacsInstance(const config::GromacsSpec& spec, std::shared_ptr<const PreparedRun> prepared,
                  std::shared_ptr<const std::string> tpr, const Slot& slot);
  SegmentResult run(const SegmentTask& task) override;

 private:
  // Runs the walker in `dir`; throws core::Error when it failed.
  void run_in(const SegmentTask& task, const std::filesystem::path& dir, SegmentResult& r) const;

  config::GromacsSpec spec_;
  std::shared_ptr<const PreparedRun> prepared_;
  std::shared_ptr<const std::string> tpr_;
  Slot slot_;
  external::WalkerSite site_;
};

}  // namespace trails::engines::gromacs
