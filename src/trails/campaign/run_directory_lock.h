// The campaign's hold on its run directory (private to the campaign module; docs/reliability.md):
// one exclusive run per directory, by flock on the directory itself (taken before anything is
// written) and on the ledger (what `trails status` asks). A second run gets a UsageError.
#pragma once

#include <filesystem>

namespace trails::campaign {

// The outermost ancestor of `dir` (or dir itself) that does not exist yet: what creating `dir`
// would add. Empty when `dir` exists.
std::filesystem::path outermost_missing(const std::filesystem::path& dir);

// One exclusive run per directory: flock on the ledger (SQLite uses fcntl locks, which are
// independent of flock, so this never interferes with the database). Returns the locked fd.
int lock_run_directory(const std::filesystem::path& outdir);

// Exclusive flock on the run directory itself, taken before anything is written into it, so of
// concurrent starts exactly one proceeds. Creates the directory when missing (the caller
// removes what it created if setup fails). Returns the locked fd, or -1 where the file system
// has no locks.
int lock_outdir(const std::filesystem::path& outdir);

}  // namespace trails::campaign
