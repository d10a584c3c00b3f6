// RunStore's shared state (private to src/trails/store/): the run directory's layout, the open
// ledger, the writer lock and the fail-stop flag, and the shard checks that opening and reading
// share. RunStore is split by what it does: run_store.cpp opens, creates and sweeps a run
// directory (resume after a crash), run_store_commit.cpp commits, run_store_reads.cpp reads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "trails/store/ledger.h"
#include "trails/store/run_store.h"
#include "trails/store/shard.h"

namespace trails::store {
namespace detail {

inline constexpr const char* kLedgerName = "ledger.sqlite";
inline constexpr const char* kShardDir = "shards";

// The shard file name of an iteration: "iter_000007.h5".
std::string shard_name(std::int64_t iteration);

}  // namespace detail

struct RunStore::Impl {
  std::filesystem::path dir;
  Mode mode = Mode::ReadOnly;
  std::unique_ptr<detail::Ledger> ledger;
  int lock_fd = -1;         // flock on the run directory while open for writing
  int ledger_lock_fd = -1;  // flock on the ledger meanwhile (run_directory_lock.h: run_active)
  bool failed = false;      // a commit failed: fail-stop until the store is reopened

  ~Impl();

  // One writer per run directory: two runs resuming the same directory would interleave.
  // held_fd: the caller's fd of dir with the flock already held (shared), or -1 to lock here.
  void lock_for_writing(int held_fd);
  // The next iteration to commit; throws on a read-only store and, fail-stop, after a failed
  // commit.
  std::int64_t next_commit() const;
  // Removes shards above the last commit and every temporary: leftovers of a crash.
  void sweep();
  // Cheap (stat only) check that every committed shard is present with its recorded size;
  // the full checksum is verified whenever positions are read.
  void check_committed_shards() const;
  // Warns when two or more shard files lie above the last commit (a ledger that lost commits).
  void warn_if_ledger_behind() const;

  // The checksum-verified shard of a committed iteration, opened for reading.
  std::unique_ptr<detail::ShardReader> open_shard(const detail::ShardLocation& loc) const;
  // The shard of a committed iteration; InputError naming the last commit otherwise.
  detail::ShardLocation committed_shard(std::int64_t iteration) const;
};

}  // namespace trails::store
