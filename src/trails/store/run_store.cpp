// RunStore: opening, creating and sweeping a run directory. The ledger transaction is the commit
// point (run_store_commit.cpp); everything on disk above the last committed iteration is a
// leftover of a crash and is removed by read-write opens, so a resumed run starts from its last
// commit. Reads are in run_store_reads.cpp.
#include "trails/store/run_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>

#include <spdlog/spdlog.h>

#include "trails/core/error.h"
#include "trails/core/fs.h"
#include "trails/store/ledger.h"
#include "trails/store/run_directory_lock.h"
#include "trails/store/run_store_impl.h"
#include "trails/store/schema.h"

namespace trails::store {

namespace fs = std::filesystem;
using detail::kLedgerName;
using detail::kShardDir;
using detail::Ledger;
using detail::shard_name;

std::string detail::shard_name(std::int64_t iteration) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "iter_%06lld.h5", static_cast<long long>(iteration));
  return buf;
}

namespace {

// The iteration of "iter_NNNNNN.h5", if `name` is a shard file name.
std::optional<std::int64_t> parse_shard_name(std::string_view name) {
  if (!name.starts_with("iter_") || !name.ends_with(".h5")) {
    return std::nullopt;
  }
  const std::string_view digits = name.substr(5, name.size() - 8);
  std::int64_t it = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), it);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    return std::nullopt;
  }
  return it;
}

}  // namespace

RunStore::Impl::~Impl() {
  ledger.reset();  // close the ledger before another writer may take the lock
  if (ledger_lock_fd >= 0) ::close(ledger_lock_fd);
  if (lock_fd >= 0) {
    ::close(lock_fd);
  }
}

void RunStore::Impl::lock_for_writing(int held_fd) {
  if (held_fd >= 0) lock_fd = ::fcntl(held_fd, F_DUPFD_CLOEXEC, 0);  // share the caller's lock
  if (lock_fd < 0) {
    lock_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock_fd >= 0 && ::flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(lock_fd);
      lock_fd = -1;
      if (err == EWOULDBLOCK) {
        throw core::InputError(dir.string() +
                               " is already open for writing by another Trails run; wait for "
                               "it to finish or stop it, then try again");
      }
      // Locks unsupported on this file system: proceed without the guard.
    }
  }
  // What `trails status` asks (run_active), for every kind of run.
  ledger_lock_fd = hold_ledger_lock(dir);
}

void RunStore::Impl::sweep() {
  const fs::path shards = dir / kShardDir;
  fs::create_directories(shards);
  const auto last = ledger->last_committed();
  for (const auto& entry : fs::directory_iterator(shards)) {
    const std::string name = entry.path().filename().string();
    const auto it = parse_shard_name(name);
    if (name.ends_with(".tmp") || (it && (!last || *it > *last))) {
      fs::remove(entry.path());
    }
  }
  core::fsync_directory(shards);
  fs::remove(dir / (std::string(kLedgerName) + ".tmp"));  // a create() that died midway
}

void RunStore::Impl::warn_if_ledger_behind() const {
  // A writer has at most one uncommitted shard (the iteration in flight) when it dies; two or
  // more shard files above the last commit mean the ledger lost commits (its -wal was deleted
  // or damaged). Read-write opens then sweep them; the warning says so first.
  const auto last = ledger->last_committed();
  std::error_code ec;
  std::int64_t above = 0;
  for (const auto& entry : fs::directory_iterator(dir / kShardDir, ec)) {
    const auto it = parse_shard_name(entry.path().filename().string());
    if (it && (!last || *it > *last)) ++above;
  }
  if (above >= 2) {
    spdlog::warn(
        "{}: {} shard files lie above the last committed iteration ({}): the ledger has lost "
        "commits (was ledger.sqlite-wal deleted or damaged?). Restore the run directory from a "
        "backup; a --resume deletes those shards and recomputes the iterations",
        dir.string(), above, last ? std::to_string(*last) : std::string("none"));
  }
}

void RunStore::Impl::check_committed_shards() const {
  for (const auto& loc : ledger->shards()) {
    const fs::path path = dir / loc.shard.file;
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) {
      throw core::CorruptionError(path.string() + " (shard of committed iteration " +
                                  std::to_string(loc.iteration) + ") is missing: " + ec.message() +
                                  "; restore it from a backup");
    }
    if (static_cast<std::int64_t>(size) != loc.shard.bytes) {
      throw core::CorruptionError(
          path.string() + " has " + std::to_string(size) + " bytes but the ledger records " +
          std::to_string(loc.shard.bytes) + " (iteration " + std::to_string(loc.iteration) +
          "); the shard is damaged, restore it from a backup");
    }
  }
}

RunStore::RunStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RunStore::RunStore(RunStore&&) noexcept = default;
RunStore& RunStore::operator=(RunStore&&) noexcept = default;
RunStore::~RunStore() = default;

fs::path RunStore::ledger_path(const fs::path& dir) { return dir / kLedgerName; }

bool RunStore::exists(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(ledger_path(dir), ec);
}

RunStore RunStore::create(const fs::path& dir, const RunMeta& meta, int dir_lock_fd) try {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw core::InputError("cannot create the run directory " + dir.string() + ": " + ec.message());
  }
  if (exists(dir)) {
    throw core::InputError(dir.string() +
                           " already holds a Trails run (ledger.sqlite); resume it, or choose "
                           "a new run directory");
  }
  // Build the ledger under a temporary name and rename it into place: a crash leaves either a
  // complete ledger or none.
  const fs::path tmp = dir / (std::string(kLedgerName) + ".tmp");
  fs::remove(tmp);
  fs::remove(tmp.string() + "-journal");
  detail::create_ledger_file(tmp, meta);
  fs::create_directories(dir / kShardDir);
  core::fsync_file(tmp);
  core::rename_durable(tmp, ledger_path(dir));
  return open(dir, Mode::ReadWrite, dir_lock_fd);
} catch (const fs::filesystem_error& e) {
  throw core::StoreError(e.what());  // one error hierarchy for callers
}

RunStore RunStore::open(const fs::path& dir, Mode mode, int dir_lock_fd) try {
  const fs::path ledger = ledger_path(dir);
  std::error_code ec;
  if (!fs::is_regular_file(ledger, ec)) {
    throw core::InputError(dir.string() +
                           " is not a Trails run directory (no ledger.sqlite); pass the "
                           "directory of an existing run");
  }
  auto impl = std::make_unique<Impl>();
  impl->dir = dir;
  impl->mode = mode;
  impl->ledger = std::make_unique<Ledger>(ledger, mode);  // validates; writes nothing
  impl->warn_if_ledger_behind();
  if (mode == Mode::ReadWrite) {
    impl->lock_for_writing(dir_lock_fd);
    impl->ledger->begin_writes();
    impl->sweep();
  }
  // Every open, read-only ones included (status, export, plot, msm, analyze), checks that each
  // committed shard exists with its recorded size; reads of positions also verify the
  // checksum (docs/reliability.md, what is verified on read).
  impl->check_committed_shards();
  return RunStore(std::move(impl));
} catch (const fs::filesystem_error& e) {
  throw core::StoreError(e.what());
}

const RunMeta& RunStore::meta() const { return impl_->ledger->meta(); }

std::optional<std::int64_t> RunStore::last_committed() const {
  return impl_->ledger->last_committed();
}

fs::path RunStore::shard_path(std::int64_t iteration) const {
  return impl_->dir / kShardDir / shard_name(iteration);
}

}  // namespace trails::store
