// The command engine (`engine.md_engine: command`): each segment runs a user's program in a
// private walker directory (engines/external/walker_directory.h) with a task file and TRAILS_*
// environment variables (task_file.h), then reads the frames and final state it wrote. A
// non-zero exit, a timeout, or missing or short outputs make a failed walker whose error quotes
// the program's stderr tail. Molecular when system.conf_file is set (PDB/GRO topology, nm, ps),
// else a point system whose coordinates are the CVs. Whether a segment is reproducible is the
// program's business: Trails hands it the walker's seed (docs/engines.md, "The command engine").
#pragma once

#include <filesystem>
#include <memory>

#include "trails/config/engine_spec.h"
#include "trails/engines/engine.h"

namespace trails::engines::command {

class CommandEngine final : public Engine {
 public:
  // Checks the program (ConfigError naming engine.command) and reads the structure (InputError
  // naming the file); a GRO structure is also written as RUN_DIR/prepared/command-topology.pdb.
  CommandEngine(const config::CommandSpec& spec, const std::filesystem::path& run_dir);

  std::string name() const override { return "command"; }
  using Engine::make_instance;
  std::unique_ptr<EngineInstance> make_instance(const Slot& slot) const override;
  Configuration default_start() const override;
  const EngineSystem& system() const override { return system_; }
  EngineCapabilities capabilities() const override;
  std::string describe() const override;

 private:
  config::CommandSpec spec_;
  std::filesystem::path run_dir_;
  EngineSystem system_;
};

}  // namespace trails::engines::command
