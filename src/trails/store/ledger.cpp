// The ledger connection: opening and validating the file, the switch to WAL mode for a writer
// and back on close, and the commit of one iteration's rows in one transaction. Reads are in
// ledger_queries.cpp, the element_state table in ledger_elements.cpp, the msm_builds table in
// ledger_msm_builds.cpp, the schema in schema.cpp.
#include "trails/store/ledger.h"

#include <algorithm>
#include <bit>
#include <string>

#include <spdlog/spdlog.h>

#include "trails/core/error.h"
#include "trails/store/schema.h"

namespace trails::store::detail {
namespace {

constexpr int kBusyTimeoutMs = 5000;

// CV blobs are little-endian float64 whatever the host; on little-endian hosts this is a view.
std::span<const std::byte> le_bytes(std::span<const double> values,
                                    std::vector<std::byte>& scratch) {
  const auto raw = std::as_bytes(values);
  if constexpr (std::endian::native == std::endian::little) {
    return raw;
  } else {
    scratch.assign(raw.begin(), raw.end());
    for (std::size_t i = 0; i < scratch.size(); i += 8) {
      std::reverse(&scratch[i], &scratch[i + 8]);
    }
    return scratch;
  }
}

int db_flags(RunStore::Mode mode) {
  return mode == RunStore::Mode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
}

}  // namespace

Ledger::Ledger(const std::filesystem::path& file, RunStore::Mode mode) : mode_(mode) {
  // Looked at before SQLite opens the file: a WAL-mode open would create an empty -wal.
  std::error_code ec;
  const bool had_wal = std::filesystem::exists(file.string() + "-wal", ec);
  try {
    db_ = Db(file, db_flags(mode));
  } catch (const core::StoreError& e) {
    throw core::InputError(file.string() + " is damaged or not a Trails ledger: " + e.what() +
                           "; nothing was changed");
  }
  sqlite3_busy_timeout(db_.get(), kBusyTimeoutMs);
  validate_ledger(db_);
  meta_ = read_meta(db_);
  {
    Stmt cols(db_, "SELECT count(*) FROM pragma_table_info('walkers') WHERE name = 'device'");
    has_device_columns_ = cols.step() && cols.int64(0) == 1;
  }
  prepare_digests();
  last_ = Stmt(db_, "SELECT max(iteration) FROM iterations");
  shard_of_ =
      Stmt(db_,
           "SELECT iteration, shard_file, shard_bytes, shard_checksum, n_atoms, spatial_dim "
           "FROM iterations WHERE iteration = ?1");
  walker_rows_ = Stmt(
      db_,
      "SELECT walker, ok, n_frames, first_row FROM walkers WHERE iteration = ?1 ORDER BY walker");
  warn_if_wal_lost(had_wal);
}

void Ledger::begin_writes() {
  TRAILS_CHECK(mode_ == RunStore::Mode::ReadWrite, "writes to a read-only ledger");
  Stmt wal(db_, "PRAGMA journal_mode=WAL");
  if (!wal.step() || wal.text(0) != "wal") {
    db_.fail("cannot switch the ledger to WAL mode (is the file system local?)");
  }
  wal.reset();
  writing_ = true;  // from here on, closing must fold the WAL back in
  db_.exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON");
  // The writer marker, checkpointed into the main file: while it reads 'open' there, commits
  // may live only in ledger.sqlite-wal (warn_if_wal_lost). close_writer() sets it back.
  db_.exec(
      "INSERT INTO meta (key, value) VALUES ('writer', 'open') "
      "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  sqlite3_exec(db_.get(), "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
  insert_iteration_ =
      Stmt(db_,
           "INSERT INTO iterations (iteration, runner_s, analysis_s, successful_walkers, "
           "failed_walkers, frames, cumulative_frames, occupied_bins, total_bins, n_bins, cv_dim, "
           "n_atoms, spatial_dim, stride, dt, shard_file, shard_bytes, shard_checksum, "
           "committed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
           "?15, ?16, ?17, ?18, ?19)");
  // A walkers table without the GPU-binding columns keeps its shape (no migration): its new
  // rows simply carry no device columns.
  insert_walker_ =
      Stmt(db_, has_device_columns_
                    ? "INSERT INTO walkers (iteration, walker, seed, ok, error, n_frames, "
                      "first_row, parent_key, startup_s, integrate_s, platform, host, cvs, "
                      "weight, device, visible_devices) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
                      "?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"
                    : "INSERT INTO walkers (iteration, walker, seed, ok, error, n_frames, "
                      "first_row, parent_key, startup_s, integrate_s, platform, host, cvs, "
                      "weight) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                      "?14)");
  insert_element_ = Stmt(
      db_, "INSERT INTO element_state (iteration, key, version, blob) VALUES (?1, ?2, ?3, ?4)");
  insert_spawn_ =
      Stmt(db_,
           "INSERT INTO spawns (iteration, slot, pool_index, source_iteration, source_walker, "
           "source_frame) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
}

bool Ledger::has_table(const char* name) const {
  Stmt has(db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1");
  has.bind_text(1, name);
  return has.step() && has.int64(0) > 0;
}

void Ledger::for_each_added_row(const char* table, const char* select,
                                const std::function<void(const Stmt&)>& fn) const {
  auto snapshot = read_snapshot();
  if (!has_table(table)) return;
  Stmt q(db_, select);
  while (q.step()) {
    fn(q);
  }
}

nlohmann::json Ledger::parse_json_column(const std::string& text, const std::string& what) const {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw core::CorruptionError(db_.path() + ": " + what + " is not valid JSON: " + e.what());
  }
}

Ledger::~Ledger() {
  if (writing_ && db_.get() != nullptr) {
    close_writer();
  }
}

void Ledger::close_writer() noexcept {
  // Fold the WAL into the main file, then leave rollback-journal mode so a closed ledger is
  // one file. The mode switch needs exclusive access: with a reader still attached it fails
  // harmlessly and the ledger stays in (checkpointed) WAL mode.
  sqlite3_exec(db_.get(), "UPDATE meta SET value = 'closed' WHERE key = 'writer'", nullptr, nullptr,
               nullptr);
  sqlite3_exec(db_.get(), "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
  sqlite3_busy_timeout(db_.get(), 0);
  sqlite3_exec(db_.get(), "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr);
}

void Ledger::warn_if_wal_lost(bool had_wal) const {
  if (had_wal) return;
  Stmt q(db_, "SELECT value FROM meta WHERE key = 'writer'");
  if (!q.step() || q.text(0) != "open") return;  // closed cleanly, or an older Trails
  spdlog::warn(
      "{}: the last writer of this run did not close the ledger (killed or crashed), and {}-wal "
      "is missing: iterations committed after the last checkpoint were in that file and are "
      "lost. The run reads as {} committed iterations. Restore ledger.sqlite-wal (with "
      "ledger.sqlite) from a backup if you have one; a --resume recomputes the lost iterations",
      db_.path(), db_.path(), [&] {
        const auto last = last_committed();
        return last ? *last + 1 : 0;
      }());
}

std::optional<std::int64_t> Ledger::last_committed() const {
  std::optional<std::int64_t> last;
  if (last_.step() && !last_.is_null(0)) last = last_.int64(0);
  last_.reset();
  return last;
}

void Ledger::insert(const IterationRecord& r, const ShardInfo& shard,
                    const std::function<void()>& before_commit) {
  try {
    std::int64_t ok = 0;
    for (const auto& w : r.walkers) ok += w.ok ? 1 : 0;
    Transaction txn(db_, "BEGIN IMMEDIATE");
    insert_iteration_.bind(1, r.iteration)
        .bind(2, r.runner_s)
        .bind(3, r.analysis_s)
        .bind(4, ok)
        .bind(5, static_cast<std::int64_t>(r.walkers.size()) - ok)
        .bind(6, r.n_frames())
        .bind(7, r.cumulative_frames)
        .bind(8, r.occupied_bins)
        .bind(9, r.total_bins)
        .bind_text(10, nlohmann::json(r.n_bins).dump())
        .bind(11, std::int64_t{r.cv_dim})
        .bind(12, std::int64_t{r.n_atoms})
        .bind(13, std::int64_t{r.spatial_dim})
        .bind(14, r.stride)
        .bind(15, r.dt)
        .bind_text(16, shard.file)
        .bind(17, shard.bytes)
        .bind_text(18, shard.checksum)
        .bind_text(19, utc_now_iso8601())
        .run();
    insert_walkers(r);
    insert_spawns(r);
    insert_elements(r);
    insert_recycling(r);
    record_rows_digest(r.iteration);
    before_commit();
    txn.commit();
  } catch (core::Error& e) {
    insert_iteration_.reset();
    insert_walker_.reset();
    insert_spawn_.reset();
    insert_element_.reset();
    e.with_context("while writing iteration " + std::to_string(r.iteration) + " to the ledger");
    throw;
  }
}

void Ledger::insert_walkers(const IterationRecord& r) {
  std::vector<std::byte> scratch;
  std::int64_t row = 0;
  for (const auto& w : r.walkers) {
    const auto n_values = static_cast<std::size_t>(w.n_frames * r.cv_dim);
    const std::span<const double> cvs =
        w.ok ? std::span<const double>(r.cvs).subspan(static_cast<std::size_t>(row * r.cv_dim),
                                                      n_values)
             : std::span<const double>();
    insert_walker_.bind(1, r.iteration)
        .bind(2, w.walker)
        .bind(3, std::bit_cast<std::int64_t>(w.seed))
        .bind(4, std::int64_t{w.ok})
        .bind_text(5, w.error)
        .bind(6, w.n_frames)
        .bind(9, w.startup_s)
        .bind(10, w.integrate_s)
        .bind_text(11, w.platform)
        .bind_text(12, w.host)
        .bind_blob(13, le_bytes(cvs, scratch))
        .bind(14, w.weight);
    if (has_device_columns_) {
      insert_walker_.bind_text(15, w.device).bind_text(16, w.visible_devices);
    }
    if (w.ok) insert_walker_.bind(7, row);
    if (w.parent) insert_walker_.bind_text(8, w.parent->to_string());
    insert_walker_.run();
    if (w.ok) row += w.n_frames;
  }
}

void Ledger::insert_spawns(const IterationRecord& r) {
  for (const auto& s : r.spawns) {
    insert_spawn_.bind(1, r.iteration)
        .bind(2, s.slot)
        .bind(3, s.pool_index)
        .bind(4, s.source.iteration)
        .bind(5, s.source.walker)
        .bind(6, s.source.frame)
        .run();
  }
}

}  // namespace trails::store::detail
