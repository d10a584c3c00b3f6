// A walker's private working directory for the external engines (command, Amber, GROMACS): made
// under node-local scratch (execution.scratch; unset: $TMPDIR, then /tmp) so the per-walker files
// never touch the run directory, and removed when the walker is done. One rule for all three
// (docs/engines.md, "Walker files and scratch"): with engine.keep_walker_files every walker's
// directory is moved instead to RUN_DIR/walker_files/iteration_I/walker_W; without it, a failed
// walker's directory stays where it is in scratch (a run that fails in its first iteration
// removes its run directory, so scratch is the place that outlives it). Either way the error
// names the place. The frames reach the run only through the iteration's shard (one
// consolidated copy; docs/file-formats.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "trails/config/engine_spec.h"
#include "trails/engines/segment.h"

namespace trails::engines::external {

class WalkerDirectory {
 public:
  // Creates a fresh directory. Throws core::InputError naming the scratch root when it cannot.
  WalkerDirectory(const config::WalkerFilesSpec& files, const std::filesystem::path& run_dir,
                  std::int64_t iteration, std::int64_t walker);
  // Removes the directory, or moves it to kept_path(); never throws (a failure is logged).
  ~WalkerDirectory();
  WalkerDirectory(const WalkerDirectory&) = delete;
  WalkerDirectory& operator=(const WalkerDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Where the files will be moved after the walker; empty unless engine.keep_walker_files.
  const std::filesystem::path& kept_path() const { return kept_; }
  // Keep the files (a failed walker); returns where they will be.
  const std::filesystem::path& keep() {
    keep_in_place_ = kept_.empty();
    return keep_in_place_ ? path_ : kept_;
  }

 private:
  std::filesystem::path path_;
  std::filesystem::path kept_;  // RUN_DIR/walker_files/iteration_I/walker_W, or empty
  bool keep_in_place_ = false;
};

// The directory walkers' scratch directories are made in: `scratch`, else $TMPDIR, else /tmp.
std::filesystem::path scratch_root(const config::WalkerFilesSpec& files);

// What an external engine's result says about where a walker ran.
struct WalkerSite {
  std::string platform;  // "command", "amber"
  std::string host;
  std::optional<int> device;
  int n_atoms = 1;
  int spatial_dim = 3;
};

// The frame of every external engine's run(): a fresh WalkerDirectory, `body` filling the
// result from it (timings, frames, final state; it throws core::Error for a failed walker),
// and any error turned into a Failed result naming the walker and where its files are kept.
// Never throws for a walker failure.
using WalkerBody = std::function<void(const std::filesystem::path& dir, SegmentResult& result)>;
SegmentResult run_walker(const SegmentTask& task, const config::WalkerFilesSpec& files,
                         const std::filesystem::path& run_dir, const WalkerSite& site,
                         const WalkerBody& body);

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start);

}  // namespace trails::engines::external
