// progress.json: how far the running iteration is (docs/file-formats.md, "progress.json").
// The campaign replaces it atomically (temp + rename) as walker results stream in; `trails
// status`, in another process, shows it only while the run is active and only when it describes
// the iteration after the last committed one, so a stale file never passes for progress.
// Not part of the ledger: nothing reads it to compute or resume anything.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace trails::store {

struct WalkerProgress {
  std::int64_t iteration = 0;
  int walkers = 0;  // this iteration's walkers
  int done = 0;     // results received (failed ones included)
  int failed = 0;
  int running = 0;
  int queued = 0;  // not started yet
  double elapsed_s = 0.0;
  std::optional<double> eta_s;  // none before the first result
  // The target of the run in progress (a --resume may raise it above the last committed
  // state's), none when not known (docs/file-formats.md, "progress.json").
  std::optional<std::int64_t> target_iterations;
  std::string updated_at;  // UTC ISO 8601
};

std::filesystem::path progress_path(const std::filesystem::path& run_dir);
// False when it cannot be written (a full disk): progress is advisory and never stops a run.
bool write_progress(const std::filesystem::path& run_dir, const WalkerProgress& progress);
// None when the file is absent or unreadable (it may be replaced while read: never an error).
std::optional<WalkerProgress> read_progress(const std::filesystem::path& run_dir);
void remove_progress(const std::filesystem::path& run_dir);

// elapsed / done × (walkers − done): the pool's throughput so far, since every slot takes the
// next walker as soon as it frees. None before the first result.
std::optional<double> iteration_eta(double elapsed_s, int done, int walkers);

}  // namespace trails::store
