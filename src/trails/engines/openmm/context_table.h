// The lock around OpenMM 7.7's CPU-platform Context table, and only that platform's.
// OpenMM 7.7's CPU platform keeps its per-Context data in one process-wide table that has no
// lock: creating, reinitializing or destroying a Context changes it while the kernels of other
// Contexts look it up on every step. Concurrent CPU walkers therefore take the table exclusively
// for those three operations and shared for everything else they do with their Context. Other
// platforms (Reference, CUDA, OpenCL, HIP) keep no such table, so their walkers take nothing
// here and are not serialised by it (docs/engines.md). Thread-safe; include only from
// engines/openmm.
#pragma once

#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string>

namespace trails::engines::openmm {

// True only for "CPU": the one platform whose Contexts share the unlocked table.
bool needs_context_table_lock(const std::string& platform);

// The table held exclusively (create / reinitialize / destroy a Context) or shared (step, get
// or set state). An empty lock, and no acquisition, when the platform does not need it.
std::unique_lock<std::shared_mutex> exclusive_context_table(const std::string& platform);
std::shared_lock<std::shared_mutex> shared_context_table(const std::string& platform);

// How many times the table has been taken (either way) in this process. Lets a test observe,
// without timing, that a platform never takes it.
std::uint64_t context_table_acquisitions();

}  // namespace trails::engines::openmm
