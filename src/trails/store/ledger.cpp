#include "trails/store/ledger.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

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

void append_le_doubles(std::span<const std::byte> blob, std::vector<double>& out) {
  const std::size_t start = out.size();
  out.resize(start + blob.size() / 8);
  std::memcpy(out.data() + start, blob.data(), blob.size());
  if constexpr (std::endian::native == std::endian::big) {
    auto* bytes = reinterpret_cast<unsigned char*>(out.data() + start);
    for (std::size_t i = 0; i < blob.size(); i += 8) {
      std::reverse(bytes + i, bytes + i + 8);
    }
  }
}

[[noreturn]] void corrupt(const Db& db, const std::string& what) {
  throw core::CorruptionError(db.path() + ": " + what);
}

std::vector<int> parse_ints(const Db& db, const std::string& text, std::int64_t iteration) {
  try {
    return nlohmann::json::parse(text).get<std::vector<int>>();
  } catch (const nlohmann::json::exception& e) {
    corrupt(db, "iterations.n_bins of iteration " + std::to_string(iteration) +
                    " is not a JSON list of integers: " + e.what());
  }
}

int db_flags(RunStore::Mode mode) {
  return mode == RunStore::Mode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
}

}  // namespace

Ledger::Ledger(const std::filesystem::path& file, RunStore::Mode mode) : mode_(mode) {
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
  last_ = Stmt(db_, "SELECT max(iteration) FROM iterations");
  shard_of_ =
      Stmt(db_,
           "SELECT iteration, shard_file, shard_bytes, shard_checksum, n_atoms, spatial_dim "
           "FROM iterations WHERE iteration = ?1");
  walker_rows_ = Stmt(
      db_,
      "SELECT walker, ok, n_frames, first_row FROM walkers WHERE iteration = ?1 ORDER BY walker");
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

Ledger::~Ledger() {
  if (writing_ && db_.get() != nullptr) {
    close_writer();
  }
}

void Ledger::close_writer() noexcept {
  // Fold the WAL into the main file, then leave rollback-journal mode so a closed ledger is
  // one file. The mode switch needs exclusive access: with a reader still attached it fails
  // harmlessly and the ledger stays in (checkpointed) WAL mode.
  sqlite3_exec(db_.get(), "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
  sqlite3_busy_timeout(db_.get(), 0);
  sqlite3_exec(db_.get(), "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr);
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
    for (const auto& s : r.spawns) {
      insert_spawn_.bind(1, r.iteration)
          .bind(2, s.slot)
          .bind(3, s.pool_index)
          .bind(4, s.source.iteration)
          .bind(5, s.source.walker)
          .bind(6, s.source.frame)
          .run();
    }
    insert_elements(r);
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

namespace {
constexpr const char* kMsmTable =
    "CREATE TABLE IF NOT EXISTS msm_builds (iteration INTEGER PRIMARY KEY, build_s REAL, "
    "model TEXT NOT NULL, committed_at TEXT NOT NULL)";
}  // namespace

void Ledger::put_msm_build(std::int64_t iteration, double build_s, const std::string& model_json) {
  TRAILS_CHECK(writing_, "put_msm_build before begin_writes");
  Transaction tx(db_, "BEGIN IMMEDIATE");
  db_.exec(kMsmTable);
  Stmt put(db_,
           "INSERT OR REPLACE INTO msm_builds (iteration, build_s, model, committed_at) "
           "VALUES (?1, ?2, ?3, ?4)");
  put.bind(1, iteration).bind(2, build_s).bind_text(3, model_json).bind_text(4, utc_now_iso8601());
  put.run();
  tx.commit();
}

std::vector<MsmBuildRow> Ledger::msm_builds() const {
  auto snapshot = read_snapshot();
  std::vector<MsmBuildRow> out;
  Stmt has(db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'msm_builds'");
  if (!has.step() || has.int64(0) == 0) return out;
  Stmt q(db_, "SELECT iteration, build_s, model FROM msm_builds ORDER BY iteration");
  while (q.step()) {
    MsmBuildRow r;
    r.iteration = q.int64(0);
    r.build_s = q.real(1);
    try {
      r.model = nlohmann::json::parse(q.text(2));
    } catch (const nlohmann::json::exception& e) {
      corrupt(db_, "msm_builds.model of iteration " + std::to_string(r.iteration) +
                       " is not valid JSON: " + e.what());
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<IterationSummary> Ledger::summaries() const {
  auto snapshot = read_snapshot();
  std::vector<IterationSummary> out;
  Stmt q(db_,
         "SELECT iteration, successful_walkers, failed_walkers, frames, cumulative_frames, "
         "occupied_bins, total_bins, n_bins, runner_s, analysis_s, committed_at "
         "FROM iterations ORDER BY iteration");
  while (q.step()) {
    IterationSummary s;
    s.iteration = q.int64(0);
    s.successful_walkers = q.int64(1);
    s.failed_walkers = q.int64(2);
    s.frames = q.int64(3);
    s.cumulative_frames = q.int64(4);
    s.occupied_bins = q.int64(5);
    s.total_bins = q.int64(6);
    s.n_bins = parse_ints(db_, q.text(7), s.iteration);
    s.runner_s = q.real(8);
    s.analysis_s = q.real(9);
    s.committed_at = q.text(10);
    out.push_back(std::move(s));
  }
  for_each_element([&](std::int64_t iteration, std::string key, int /*version*/,
                       nlohmann::json value) {
    auto it =
        std::lower_bound(out.begin(), out.end(), iteration,
                         [](const IterationSummary& x, std::int64_t v) { return x.iteration < v; });
    if (it == out.end() || it->iteration != iteration)
      corrupt(db_, "element state of an unknown iteration");
    it->state[key] = std::move(value);
  });
  Stmt spawns(db_, "SELECT iteration, pool_index FROM spawns ORDER BY iteration, slot");
  std::size_t at = 0;
  while (spawns.step()) {
    const std::int64_t it = spawns.int64(0);
    while (at < out.size() && out[at].iteration < it) {
      ++at;
    }
    if (at == out.size() || out[at].iteration != it) {
      corrupt(db_, "spawn of an unknown iteration");
    }
    out[at].spawn_pool_indices.push_back(spawns.int64(1));
  }
  snapshot.commit();
  return out;
}

std::vector<IterationRecord> Ledger::load_iterations() const {
  auto snapshot = read_snapshot();
  std::vector<IterationRecord> out;
  Stmt q(db_,
         "SELECT iteration, runner_s, analysis_s, cumulative_frames, occupied_bins, total_bins, "
         "n_bins, cv_dim, n_atoms, spatial_dim, stride, dt FROM iterations "
         "ORDER BY iteration");
  while (q.step()) {
    IterationRecord r;
    r.iteration = q.int64(0);
    r.runner_s = q.real(1);
    r.analysis_s = q.real(2);
    r.cumulative_frames = q.int64(3);
    r.occupied_bins = q.int64(4);
    r.total_bins = q.int64(5);
    r.n_bins = parse_ints(db_, q.text(6), r.iteration);
    r.cv_dim = static_cast<int>(q.int64(7));
    r.n_atoms = static_cast<int>(q.int64(8));
    r.spatial_dim = static_cast<int>(q.int64(9));
    r.stride = q.int64(10);
    r.dt = q.real(11);
    out.push_back(std::move(r));
  }
  auto find = [&](std::size_t& at, std::int64_t it) -> IterationRecord& {
    while (at < out.size() && out[at].iteration < it) {
      ++at;
    }
    if (at == out.size() || out[at].iteration != it) {
      corrupt(db_, "row of an unknown iteration");
    }
    return out[at];
  };
  Stmt walkers(db_, has_device_columns_
                        ? "SELECT iteration, walker, seed, ok, error, n_frames, parent_key, "
                          "startup_s, integrate_s, platform, host, cvs, weight, device, "
                          "visible_devices FROM walkers ORDER BY iteration, walker"
                        : "SELECT iteration, walker, seed, ok, error, n_frames, parent_key, "
                          "startup_s, integrate_s, platform, host, cvs, weight FROM walkers "
                          "ORDER BY iteration, walker");
  std::size_t at = 0;
  while (walkers.step()) {
    IterationRecord& r = find(at, walkers.int64(0));
    WalkerRecord w;
    w.walker = walkers.int64(1);
    w.seed = std::bit_cast<std::uint64_t>(walkers.int64(2));
    w.ok = walkers.int64(3) != 0;
    w.error = walkers.text(4);
    w.n_frames = walkers.int64(5);
    if (!walkers.is_null(6)) {
      w.parent = core::FrameKey::parse(walkers.text(6));
      if (!w.parent) {
        corrupt(db_, "bad parent_key '" + walkers.text(6) + "'");
      }
    }
    w.startup_s = walkers.real(7);
    w.integrate_s = walkers.real(8);
    w.platform = walkers.text(9);
    w.host = walkers.text(10);
    w.weight = walkers.real(12);
    if (has_device_columns_) {
      w.device = walkers.text(13);
      w.visible_devices = walkers.text(14);
    }
    const auto blob = walkers.blob(11);
    if (blob.size() != static_cast<std::size_t>(w.n_frames * r.cv_dim) * 8 ||
        (!w.ok && !blob.empty())) {
      corrupt(db_, "cvs of walker " + std::to_string(w.walker) + " in iteration " +
                       std::to_string(r.iteration) + " has " + std::to_string(blob.size()) +
                       " bytes, expected n_frames x cv_dim x 8");
    }
    if (w.ok) {
      append_le_doubles(blob, r.cvs);
    }
    r.walkers.push_back(std::move(w));
  }
  Stmt spawns(db_,
              "SELECT iteration, slot, pool_index, source_iteration, source_walker, source_frame "
              "FROM spawns ORDER BY iteration, slot");
  at = 0;
  while (spawns.step()) {
    IterationRecord& r = find(at, spawns.int64(0));
    r.spawns.push_back(
        SpawnChoice{spawns.int64(1), spawns.int64(2),
                    core::FrameKey{spawns.int64(3), spawns.int64(4), spawns.int64(5)}});
  }
  at = 0;
  for_each_element([&](std::int64_t iteration, std::string key, int version, nlohmann::json value) {
    IterationRecord& r = find(at, iteration);
    r.state_versions[key] = version;
    r.state[key] = std::move(value);
  });
  snapshot.commit();
  return out;
}

std::vector<ShardLocation> Ledger::shards() const {
  std::vector<ShardLocation> out;
  Stmt q(db_,
         "SELECT iteration, shard_file, shard_bytes, shard_checksum, n_atoms, spatial_dim "
         "FROM iterations ORDER BY iteration");
  while (q.step()) {
    out.push_back({q.int64(0), {q.text(1), q.int64(2), q.text(3)}, q.int64(4), q.int64(5)});
  }
  return out;
}

std::optional<ShardLocation> Ledger::shard_of(std::int64_t iteration) const {
  std::optional<ShardLocation> out;
  shard_of_.bind(1, iteration);
  if (shard_of_.step()) {
    out = ShardLocation{shard_of_.int64(0),
                        {shard_of_.text(1), shard_of_.int64(2), shard_of_.text(3)},
                        shard_of_.int64(4),
                        shard_of_.int64(5)};
  }
  shard_of_.reset();
  return out;
}

std::vector<WalkerRow> Ledger::walker_rows(std::int64_t iteration) const {
  std::vector<WalkerRow> out;
  walker_rows_.bind(1, iteration);
  while (walker_rows_.step()) {
    out.push_back({walker_rows_.int64(0), walker_rows_.int64(1) != 0, walker_rows_.int64(2),
                   walker_rows_.is_null(3) ? -1 : walker_rows_.int64(3)});
  }
  walker_rows_.reset();
  return out;
}

std::vector<WalkerRecord> Ledger::walker_placements(std::int64_t iteration) const {
  Stmt q(db_, has_device_columns_
                  ? "SELECT walker, seed, ok, error, n_frames, startup_s, integrate_s, platform, "
                    "host, weight, device, visible_devices FROM walkers WHERE iteration = ?1 "
                    "ORDER BY walker"
                  : "SELECT walker, seed, ok, error, n_frames, startup_s, integrate_s, platform, "
                    "host, weight FROM walkers WHERE iteration = ?1 ORDER BY walker");
  q.bind(1, iteration);
  std::vector<WalkerRecord> out;
  while (q.step()) {
    WalkerRecord w;
    w.walker = q.int64(0);
    w.seed = std::bit_cast<std::uint64_t>(q.int64(1));
    w.ok = q.int64(2) != 0;
    w.error = q.text(3);
    w.n_frames = q.int64(4);
    w.startup_s = q.real(5);
    w.integrate_s = q.real(6);
    w.platform = q.text(7);
    w.host = q.text(8);
    w.weight = q.real(9);
    if (has_device_columns_) {
      w.device = q.text(10);
      w.visible_devices = q.text(11);
    }
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace trails::store::detail
