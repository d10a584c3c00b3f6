// One run per run directory, whatever the run kind (campaign or swarm; docs/reliability.md,
// "Signals, child processes and concurrent runs"): an exclusive flock on the directory itself,
// taken before anything is written into it, so of concurrent starts exactly one proceeds and
// the others get a UsageError; and, while a RunStore is open for writing, a flock on its ledger,
// which `trails status` asks without disturbing the run.
#pragma once

#include <filesystem>

namespace trails::store {

// The outermost ancestor of `dir` (or dir itself) that does not exist yet: what creating `dir`
// would add. Empty when `dir` exists.
std::filesystem::path outermost_missing(const std::filesystem::path& dir);

// Exclusive flock on the run directory, creating it when missing (the caller removes what it
// created if setup fails). Returns the locked fd (RunStore::create/open share it), or -1 where
// the file system has no locks. UsageError when another process holds it.
int lock_run_directory(const std::filesystem::path& dir);

// The message of that UsageError: "another trails process is running in DIR; ...".
std::string another_run_holds(const std::filesystem::path& dir);

// Exclusive flock on the ledger of dir, held while a store is open for writing (blocking: the
// directory lock already keeps writers out, so only a status probe can hold it, briefly).
// Returns the fd, or -1 when the ledger cannot be opened or locks are unsupported.
int hold_ledger_lock(const std::filesystem::path& dir);

// Whether a run (campaign or swarm) holds dir's store open for writing now.
bool run_active(const std::filesystem::path& dir);

}  // namespace trails::store
