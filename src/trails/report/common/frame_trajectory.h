// Chosen stored frames of a molecular (OpenMM) run, in the order given, as one trajectory file
// (.xtc, .dcd or a multi-MODEL .pdb) with the run's prepared topology
// (RUN_DIR/prepared/<digest>/topology.pdb), as `trails export --trajectory` writes a whole run.
// The caller stamps each frame with its step and time; which stored frame each is comes with
// the caller's metadata.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "trails/core/frame_key.h"
#include "trails/store/run_store.h"

namespace trails::report {

// ".xtc", ".dcd" or ".pdb" of `file` (lower-cased); UsageError naming `option` otherwise.
std::string trajectory_extension(const std::string& option, const std::filesystem::path& file);

// Step and time (ps) a written frame carries.
struct FrameStamp {
  std::int64_t step = 0;
  double time_ps = 0.0;
};

// Writes `keys` to `file` (normally a PendingOutput's temporary path), frame k stamped with
// stamps[k] (.pdb has no times); the format follows trajectory_extension(). InputError when the
// run has no prepared topology, its atom count differs, or the frames were stored under
// different record selections.
void write_frame_trajectory(const store::RunStore& store, const std::filesystem::path& run_dir,
                            std::span<const core::FrameKey> keys,
                            std::span<const FrameStamp> stamps, const std::filesystem::path& file);

}  // namespace trails::report
