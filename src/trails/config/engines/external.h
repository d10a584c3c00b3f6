// What the external engines' specs share (command, Amber, GROMACS): where each walker runs.
#pragma once

#include <filesystem>
#include <optional>

namespace trails::config {

// Where the external engines (command, Amber, GROMACS) run each walker: a private directory
// under `scratch` (execution.scratch; unset: $TMPDIR, then /tmp), removed after the walker. With
// keep_walker_files every one is moved to run_dir/walker_files/iteration_I/walker_W; without,
// a failed walker's stays in scratch (docs/engines.md, "Walker files and scratch").
struct WalkerFilesSpec {
  std::optional<std::filesystem::path> scratch;
  bool keep_walker_files = false;
};

}  // namespace trails::config
