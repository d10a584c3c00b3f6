// `trails run --resume N` (docs/reliability.md, "Resuming from an earlier iteration"): a run
// store taken back to committed iteration N, so that it continues from there as if it had
// stopped at N. The caller keeps a copy of the run first; nothing here is moved aside.
#pragma once

#include <cstdint>
#include <filesystem>

namespace trails::store {

// Under the run directory's writer lock: the ledger rows of every iteration after `iteration`
// (all tables) deleted in one transaction, then their shards swept by a read-write open.
// UsageError, nothing changed, when another process writes the run, or when a configuration
// change recorded on a --resume was first run after iteration + 1 (continuing from `iteration`
// would apply it to iterations that ran without it).
void rewind_to(const std::filesystem::path& run_dir, std::int64_t iteration);

}  // namespace trails::store
