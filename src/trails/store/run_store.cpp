// RunStore: the commit protocol, open-time sweep and the frame lookups over the ledger and the
// per-iteration shards. The ledger transaction is the commit point; everything on disk above
// the last committed iteration is a leftover of a crash and is removed by read-write opens.
#include "trails/store/run_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>

#include "trails/core/crash_point.h"
#include "trails/core/error.h"
#include "trails/core/fs.h"
#include "trails/store/ledger.h"
#include "trails/store/schema.h"
#include "trails/store/shard.h"
#include "trails/store/shard_io.h"

namespace trails::store {

namespace fs = std::filesystem;
using detail::Ledger;

namespace {

constexpr const char* kLedgerName = "ledger.sqlite";
constexpr const char* kShardDir = "shards";

std::string shard_name(std::int64_t iteration) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "iter_%06lld.h5", static_cast<long long>(iteration));
  return buf;
}

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

// Checks the record's internal consistency; a violation is a driver bug, not bad input.
void check_record(const IterationRecord& r) {
  TRAILS_CHECK(r.cv_dim >= 0 && r.n_atoms >= 0 && r.spatial_dim >= 0, "negative dimension");
  TRAILS_CHECK(r.stride >= 1, "stride must be at least 1");
  std::int64_t frames = 0;
  std::int64_t previous = -1;
  for (const auto& w : r.walkers) {
    TRAILS_CHECK(w.walker > previous, "walkers must be in strictly increasing walker order");
    previous = w.walker;
    TRAILS_CHECK(w.n_frames >= 0 && (w.ok || w.n_frames == 0),
                 "walker " + std::to_string(w.walker) + ": a failed walker has no frames");
    if (w.ok) frames += w.n_frames;
  }
  TRAILS_CHECK(
      static_cast<std::int64_t>(r.cvs.size()) == frames * r.cv_dim && r.n_frames() == frames,
      "cvs hold " + std::to_string(r.cvs.size()) + " values, the ok walkers have " +
          std::to_string(frames) + " frames x cv_dim " + std::to_string(r.cv_dim));
  TRAILS_CHECK(static_cast<std::int64_t>(r.positions.size()) == frames * r.n_atoms * r.spatial_dim,
               "positions hold " + std::to_string(r.positions.size()) + " values, expected " +
                   std::to_string(frames) + " frames x n_atoms x spatial_dim");
  // Final states: none (a record without them), or one per ok walker in walker order.
  if (!r.final_states.empty()) {
    std::size_t k = 0;
    for (const auto& w : r.walkers) {
      if (!w.ok) continue;
      TRAILS_CHECK(k < r.final_states.size() && r.final_states[k].walker == w.walker,
                   "final states are one per ok walker, in walker order");
      ++k;
    }
    TRAILS_CHECK(k == r.final_states.size(), "final states of walkers that did not succeed");
  }
  TRAILS_CHECK(r.spawn_starts.empty() || r.spawn_starts.size() == r.spawns.size(),
               "spawn starts are one per spawn slot, or none");
  const auto& atoms = r.record_policy.atoms;
  TRAILS_CHECK(
      std::adjacent_find(atoms.begin(), atoms.end(), std::greater_equal<>()) == atoms.end() &&
          (atoms.empty() || (atoms.front() >= 0 && atoms.back() < r.n_atoms)),
      "record selection atoms must be strictly increasing indices below n_atoms");
  previous = -1;
  for (const auto& s : r.spawns) {
    TRAILS_CHECK(s.slot > previous, "spawns must be in strictly increasing slot order");
    previous = s.slot;
  }
}

}  // namespace

struct RunStore::Impl {
  fs::path dir;
  Mode mode = Mode::ReadOnly;
  std::unique_ptr<Ledger> ledger;
  int lock_fd = -1;     // flock on the run directory while open for writing
  bool failed = false;  // a commit failed: fail-stop until the store is reopened

  ~Impl() {
    ledger.reset();  // close the ledger before another writer may take the lock
    if (lock_fd >= 0) {
      ::close(lock_fd);
    }
  }

  // One writer per run directory: two runs resuming the same directory would interleave.
  void lock_for_writing(int held_fd) {
    if (held_fd >= 0) {  // the caller's lock: share its open file description
      lock_fd = ::fcntl(held_fd, F_DUPFD_CLOEXEC, 0);
      if (lock_fd >= 0) return;
    }
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

  // Removes shards above the last commit and every temporary: leftovers of a crash.
  void sweep() {
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

  // The checksum-verified shard of a committed iteration, opened for reading.
  std::unique_ptr<detail::ShardReader> open_shard(const detail::ShardLocation& loc) const {
    const fs::path path = dir / loc.shard.file;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      throw core::CorruptionError(path.string() + " (shard of committed iteration " +
                                  std::to_string(loc.iteration) + ") is missing");
    }
    const auto actual = detail::checksum_file(path);
    if (actual.checksum != loc.shard.checksum || actual.bytes != loc.shard.bytes) {
      throw core::CorruptionError(
          path.string() + " is damaged: the ledger records checksum " + loc.shard.checksum + " (" +
          std::to_string(loc.shard.bytes) + " bytes), the file has " + actual.checksum + " (" +
          std::to_string(actual.bytes) + " bytes); restore it from a backup");
    }
    auto reader = std::make_unique<detail::ShardReader>(path);
    if (reader->system_atoms() != loc.n_atoms || reader->spatial_dim() != loc.spatial_dim) {
      throw core::CorruptionError(
          path.string() + ": positions are of " + std::to_string(reader->system_atoms()) + " x " +
          std::to_string(reader->spatial_dim()) + ", the ledger records " +
          std::to_string(loc.n_atoms) + " x " + std::to_string(loc.spatial_dim));
    }
    return reader;
  }

  detail::ShardLocation committed_shard(std::int64_t iteration) const {
    const auto loc = ledger->shard_of(iteration);
    if (!loc) {
      const auto last = ledger->last_committed();
      throw core::InputError("iteration " + std::to_string(iteration) + " is not committed in " +
                             dir.string() +
                             " (last committed: " + (last ? std::to_string(*last) : "none") + ")");
    }
    return *loc;
  }

  // Cheap (stat only) check that every committed shard is present with its recorded size;
  // the full checksum is verified whenever positions are read.
  void check_committed_shards() const {
    for (const auto& loc : ledger->shards()) {
      const fs::path path = dir / loc.shard.file;
      std::error_code ec;
      const auto size = fs::file_size(path, ec);
      if (ec) {
        throw core::CorruptionError(path.string() + " (shard of committed iteration " +
                                    std::to_string(loc.iteration) +
                                    ") is missing: " + ec.message() + "; restore it from a backup");
      }
      if (static_cast<std::int64_t>(size) != loc.shard.bytes) {
        throw core::CorruptionError(
            path.string() + " has " + std::to_string(size) + " bytes but the ledger records " +
            std::to_string(loc.shard.bytes) + " (iteration " + std::to_string(loc.iteration) +
            "); the shard is damaged, restore it from a backup");
      }
    }
  }
};

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
  if (mode == Mode::ReadWrite) {
    impl->lock_for_writing(dir_lock_fd);
    impl->ledger->begin_writes();
    impl->sweep();
    impl->check_committed_shards();
  }
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

void RunStore::commit_msm_build(const MsmBuildRow& row) {
  TRAILS_CHECK(impl_->mode == Mode::ReadWrite, "commit on a read-only run store");
  impl_->ledger->put_msm_build(row.iteration, row.build_s, row.model.dump());
}

std::vector<MsmBuildRow> RunStore::msm_builds() const { return impl_->ledger->msm_builds(); }

void RunStore::commit(const IterationRecord& record) {
  Impl& s = *impl_;
  TRAILS_CHECK(s.mode == Mode::ReadWrite, "commit on a read-only run store");
  if (s.failed) {
    throw core::StoreError("an earlier commit to " + s.dir.string() +
                           " failed; reopen the run store to resume from its last commit");
  }
  const auto last = s.ledger->last_committed();
  const std::int64_t expected = last ? *last + 1 : 0;
  TRAILS_CHECK(record.iteration == expected, "iterations are committed in order: got " +
                                                 std::to_string(record.iteration) + ", expected " +
                                                 std::to_string(expected));
  check_record(record);

  const std::int64_t n = record.iteration;
  const fs::path final_path = shard_path(n);
  const fs::path tmp_path = final_path.string() + ".tmp";
  try {
    const auto written = detail::write_shard_file(tmp_path, record);
    core::crash_point("shard-written", n);
    core::rename_durable(tmp_path, final_path);
    core::crash_point("shard-renamed", n);
    const detail::ShardInfo shard{std::string(kShardDir) + "/" + shard_name(n), written.bytes,
                                  written.checksum};
    s.ledger->insert(record, shard, [n] { core::crash_point("ledger-commit", n); });
  } catch (...) {
    // Fail-stop: the outcome of a failed COMMIT can be unknown until the ledger is reopened,
    // so the renamed shard stays (a reopen sweeps it if the iteration did not commit).
    s.failed = true;
    std::error_code ec;
    fs::remove(tmp_path, ec);
    throw;
  }
}

std::vector<IterationSummary> RunStore::summaries() const { return impl_->ledger->summaries(); }

std::vector<IterationRecord> RunStore::load_iterations() const {
  return impl_->ledger->load_iterations();
}

std::vector<std::vector<double>> RunStore::load_positions(
    std::span<const core::FrameKey> keys) const {
  auto frames = load_frames(keys);
  std::vector<std::vector<double>> out;
  out.reserve(frames.size());
  for (auto& f : frames) out.push_back(std::move(f.positions));
  return out;
}

std::vector<RunStore::StoredFrame> RunStore::load_frames(
    std::span<const core::FrameKey> keys) const {
  const Impl& s = *impl_;
  std::vector<StoredFrame> out(keys.size());
  if (keys.empty()) return out;
  std::map<std::int64_t, std::vector<std::size_t>> by_iteration;
  for (std::size_t i = 0; i < keys.size(); ++i) by_iteration[keys[i].iteration].push_back(i);

  auto snapshot = s.ledger->read_snapshot();
  for (const auto& [iteration, wanted] : by_iteration) {
    auto unknown = [&](std::size_t i, const std::string& why) {
      return core::InputError("frame " + keys[i].to_string() + " is not in the run store " +
                              s.dir.string() + ": " + why);
    };
    const auto loc = s.ledger->shard_of(iteration);
    if (!loc) {
      const auto last = s.ledger->last_committed();
      throw unknown(wanted.front(), "iteration " + std::to_string(iteration) +
                                        " is not committed (last committed: " +
                                        (last ? std::to_string(*last) : "none") + ")");
    }
    // Rows are the ok walkers' frames in walker order; first_row records where each starts.
    const auto walkers = s.ledger->walker_rows(iteration);
    std::vector<std::pair<std::int64_t, std::size_t>> rows;  // (shard row, output index)
    for (std::size_t i : wanted) {
      const auto& key = keys[i];
      auto w =
          std::lower_bound(walkers.begin(), walkers.end(), key.walker,
                           [](const detail::WalkerRow& r, std::int64_t v) { return r.walker < v; });
      if (w == walkers.end() || w->walker != key.walker) throw unknown(i, "no such walker");
      if (!w->ok) throw unknown(i, "the walker failed and has no frames");
      if (key.frame < 0 || key.frame >= w->n_frames) {
        throw unknown(i, "the walker has " + std::to_string(w->n_frames) + " frames");
      }
      rows.emplace_back(w->first_row + key.frame, i);
    }

    const auto reader = s.open_shard(*loc);
    std::sort(rows.begin(), rows.end());  // forward through the chunks
    const auto frame_size = static_cast<std::size_t>(reader->n_atoms() * loc->spatial_dim);
    for (const auto& [row, i] : rows) {
      out[i].positions.resize(frame_size);
      reader->read_frame(row, out[i].positions);
      if (reader->has_boxes()) {
        out[i].box.resize(9);
        reader->read_box(row, out[i].box);
      }
    }
  }
  snapshot.commit();
  return out;
}

std::vector<FinalState> RunStore::load_final_states(std::int64_t iteration) const {
  return impl_->open_shard(impl_->committed_shard(iteration))->read_final_states();
}

std::vector<FinalState> RunStore::load_spawn_starts(std::int64_t iteration) const {
  return impl_->open_shard(impl_->committed_shard(iteration))->read_spawn_starts();
}

RecordPolicy RunStore::record_policy(std::int64_t iteration) const {
  return impl_->open_shard(impl_->committed_shard(iteration))->record_policy();
}

core::InputError RunStore::version_mismatch(std::int64_t iteration, const std::string& key,
                                            int stored, int expected) const {
  return core::InputError(impl_->dir.string() + ": the state of element '" + key +
                          "' in iteration " + std::to_string(iteration) + " has version " +
                          std::to_string(stored) + ", this Trails reads version " +
                          std::to_string(expected) +
                          "; resume the run with the Trails that made it (meta.trails_version " +
                          meta().trails_version + "), or start a new campaign in another outdir");
}

std::optional<nlohmann::json> RunStore::load_element_state(std::int64_t iteration,
                                                           const std::string& key,
                                                           int expected_version) const {
  impl_->committed_shard(iteration);  // a clear error for an iteration that is not committed
  auto blob = impl_->ledger->element_state(iteration, key);
  if (!blob) return std::nullopt;
  if (blob->version != expected_version) {
    throw version_mismatch(iteration, key, blob->version, expected_version);
  }
  return std::move(blob->value);
}

nlohmann::json RunStore::load_state(std::int64_t iteration,
                                    const std::map<std::string, int>& versions) const {
  impl_->committed_shard(iteration);  // a clear error for an iteration that is not committed
  nlohmann::json state;
  for (auto& [key, blob] : impl_->ledger->element_states(iteration)) {
    const auto expected = versions.find(key);
    if (expected == versions.end()) {
      throw core::InputError(impl_->dir.string() + ": iteration " + std::to_string(iteration) +
                             " holds state of element '" + key +
                             "', which this Trails does not know; resume the run with the "
                             "Trails that made it (meta.trails_version " +
                             meta().trails_version + ")");
    }
    if (blob.version != expected->second)
      throw version_mismatch(iteration, key, blob.version, expected->second);
    state[key] = std::move(blob.value);
  }
  return state;
}

std::vector<WalkerRecord> RunStore::walker_placements(std::int64_t iteration) const {
  return impl_->ledger->walker_placements(iteration);
}

}  // namespace trails::store
