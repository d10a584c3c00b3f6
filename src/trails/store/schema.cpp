#include "trails/store/schema.h"

#include <chrono>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "trails/core/error.h"

namespace trails::store::detail {
namespace {

// REAL columns stay nullable on purpose: SQLite stores NaN as NULL, and a NaN timing must
// not make a commit fail. JSON columns are TEXT.
constexpr const char* kDdl = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
);
CREATE TABLE iterations (
  iteration          INTEGER PRIMARY KEY NOT NULL CHECK (iteration >= 0),
  runner_s           REAL,
  analysis_s         REAL,
  successful_walkers INTEGER NOT NULL,
  failed_walkers     INTEGER NOT NULL,
  frames             INTEGER NOT NULL,
  cumulative_frames  INTEGER NOT NULL,
  occupied_bins      INTEGER NOT NULL,
  total_bins         INTEGER NOT NULL,
  n_bins             TEXT    NOT NULL,
  cv_dim             INTEGER NOT NULL,
  n_atoms            INTEGER NOT NULL,
  spatial_dim        INTEGER NOT NULL,
  stride             INTEGER NOT NULL,
  dt                 REAL,
  shard_file         TEXT    NOT NULL,
  shard_bytes        INTEGER NOT NULL,
  shard_checksum     TEXT    NOT NULL,
  committed_at       TEXT    NOT NULL,
  -- CRC-32 of the iteration's rows that restarts and exports read (Ledger::rows_digest); a table
  -- without this column is from an older Trails and its rows are not verifiable.
  rows_checksum      TEXT    NOT NULL DEFAULT ''
);
CREATE TABLE walkers (
  iteration   INTEGER NOT NULL REFERENCES iterations (iteration),
  walker      INTEGER NOT NULL CHECK (walker >= 0),
  seed        INTEGER NOT NULL,
  ok          INTEGER NOT NULL CHECK (ok IN (0, 1)),
  error       TEXT    NOT NULL,
  n_frames    INTEGER NOT NULL,
  first_row   INTEGER,
  parent_key  TEXT,
  startup_s   REAL,
  integrate_s REAL,
  platform    TEXT    NOT NULL,
  host        TEXT    NOT NULL,
  cvs         BLOB    NOT NULL,
  -- The GPU-binding record; a walkers table without these columns reads them as ''.
  device          TEXT NOT NULL DEFAULT '',
  visible_devices TEXT NOT NULL DEFAULT '',
  weight      REAL    NOT NULL,
  PRIMARY KEY (iteration, walker)
);
CREATE TABLE spawns (
  iteration        INTEGER NOT NULL REFERENCES iterations (iteration),
  slot             INTEGER NOT NULL,
  pool_index       INTEGER NOT NULL,
  source_iteration INTEGER NOT NULL,
  source_walker    INTEGER NOT NULL,
  source_frame     INTEGER NOT NULL,
  PRIMARY KEY (iteration, slot),
  FOREIGN KEY (source_iteration, source_walker) REFERENCES walkers (iteration, walker)
);
CREATE TABLE element_state (
  iteration INTEGER NOT NULL REFERENCES iterations (iteration),
  key       TEXT    NOT NULL,
  version   INTEGER NOT NULL,
  blob      BLOB    NOT NULL,
  PRIMARY KEY (iteration, key)
);
)sql";

[[noreturn]] void damaged(const Db& db, const std::string& detail) {
  throw core::InputError(db.path() + " is damaged or not a Trails ledger: " + detail +
                         "; nothing was changed. Restore the run directory from a backup, or "
                         "check that you passed the right directory.");
}

// Runs a query whose first column we want as text; errors become a "damaged" InputError.
std::vector<std::string> column_or_damaged(const Db& db, const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  std::vector<std::string> rows;
  int rc = sqlite3_prepare_v2(db.get(), sql, -1, &stmt, nullptr);
  while (rc == SQLITE_OK || rc == SQLITE_ROW) {
    rc = sqlite3_step(stmt);
    if (rc != SQLITE_ROW) {
      break;
    }
    const auto* text = sqlite3_column_text(stmt, 0);
    rows.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "");
  }
  std::string msg = db.errmsg();
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) {
    damaged(db, msg);
  }
  return rows;
}

// Reads the 100-byte SQLite header through SQLite's own file handle: no statement has run,
// so SQLite has not yet looked at -wal/-shm (it would create them for a WAL-mode header), and
// using SQLite's handle keeps the POSIX locks of other connections in this process intact.
void check_header(const Db& db) {
  sqlite3_file* file = nullptr;
  if (sqlite3_file_control(db.get(), "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK ||
      file == nullptr || file->pMethods == nullptr) {
    damaged(db, "cannot read the file");
  }
  sqlite3_int64 size = 0;
  if (file->pMethods->xFileSize(file, &size) != SQLITE_OK) {
    damaged(db, "cannot read its size");
  }
  if (size < 100) {
    damaged(db, "it is " + std::to_string(size) + " bytes long (truncated)");
  }
  unsigned char h[100];
  if (file->pMethods->xRead(file, h, sizeof h, 0) != SQLITE_OK) {
    damaged(db, "cannot read it");
  }
  if (std::memcmp(h, "SQLite format 3", 16) != 0) {
    damaged(db, "file is not a database");
  }
  const std::int64_t page = h[16] == 0 && h[17] == 1 ? 65536 : (h[16] << 8 | h[17]);
  if (page < 512 || (page & (page - 1)) != 0) {
    damaged(db, "bad page size in the header");
  }
  if (size % page != 0) {
    damaged(db, "it is " + std::to_string(size) + " bytes, not a whole number of " +
                    std::to_string(page) + "-byte pages (truncated)");
  }
  const std::uint32_t app = std::uint32_t(h[68]) << 24 | std::uint32_t(h[69]) << 16 |
                            std::uint32_t(h[70]) << 8 | std::uint32_t(h[71]);
  if (app != static_cast<std::uint32_t>(kApplicationId)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "application_id is 0x%08x, not 0x%08x", app,
                  static_cast<unsigned>(kApplicationId));
    damaged(db, buf);
  }
}

int parse_version(const Db& db, const std::string& text, const char* where) {
  try {
    std::size_t used = 0;
    const int v = std::stoi(text, &used);
    if (used == text.size()) {
      return v;
    }
  } catch (const std::exception&) {
  }
  damaged(db, std::string(where) + " is '" + text + "', not a schema version");
}

}  // namespace

void create_ledger_file(const std::filesystem::path& file, const RunMeta& meta) {
  Db db(file, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  db.exec("PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON");
  Transaction txn(db, "BEGIN IMMEDIATE");
  db.exec(("PRAGMA application_id=" + std::to_string(kApplicationId)).c_str());
  db.exec(("PRAGMA user_version=" + std::to_string(kSchemaVersion)).c_str());
  db.exec(kDdl);
  Stmt put(db, "INSERT INTO meta (key, value) VALUES (?1, ?2)");
  auto set = [&](const char* key, const std::string& value) {
    put.bind_text(1, key).bind_text(2, value).run();
  };
  set("application", kApplicationMagic);
  set("schema_version", std::to_string(kSchemaVersion));
  set("trails_version", meta.trails_version);
  set("config_digest", meta.config_digest);
  set("config", meta.config.dump());
  set("effective_config", meta.effective_config.dump());
  set("engine_system", meta.engine_system.dump());
  set("created_at", meta.created_at.empty() ? utc_now_iso8601() : meta.created_at);
  set("shard_checksum", "crc32");
  set("position_precision", position_precision_text(meta.position_precision));
  txn.commit();
}

std::string position_precision_text(double position_precision) {
  return position_precision > 0.0 ? nlohmann::json(position_precision).dump()
                                  : std::string("exact");
}

void validate_ledger(const Db& db) {
  check_header(db);
  const auto magic = column_or_damaged(db, "SELECT value FROM meta WHERE key = 'application'");
  if (magic.size() != 1 || magic[0] != kApplicationMagic) {
    damaged(db, "meta.application is not '" + std::string(kApplicationMagic) + "'");
  }
  const auto user = column_or_damaged(db, "PRAGMA user_version");
  const auto stored = column_or_damaged(db, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (user.size() != 1 || stored.size() != 1) {
    damaged(db, "the schema version is missing");
  }
  const int v_user = parse_version(db, user[0], "PRAGMA user_version");
  const int v_meta = parse_version(db, stored[0], "meta.schema_version");
  const int version = std::max(v_user, v_meta);
  if (version > kSchemaVersion) {
    throw core::InputError(db.path() + " was written by a newer Trails (schema " +
                           std::to_string(version) + " > " + std::to_string(kSchemaVersion) +
                           "); use that version of Trails to open this run");
  }
  if (v_user == v_meta && version >= 1 && version < kSchemaVersion) {
    // No migration: schema 1 ledgers lack the weights and final states that a resumed run
    // needs, and Trails cannot reconstruct them (docs/file-formats.md, schema versions).
    std::string made_by;
    const auto by = column_or_damaged(db, "SELECT value FROM meta WHERE key = 'trails_version'");
    if (by.size() == 1 && !by[0].empty()) made_by = " " + by[0];
    throw core::InputError(db.path() + ": this run was made by an older Trails" + made_by +
                           " (schema " + std::to_string(version) + "; this Trails reads schema " +
                           std::to_string(kSchemaVersion) +
                           "). Resume, inspect or export it with the Trails that made it, or "
                           "start the campaign again in a new outdir; nothing was changed");
  }
  if (v_user != v_meta || version < 1) {
    damaged(db, "schema versions disagree (user_version " + user[0] + ", meta " + stored[0] + ")");
  }
  const auto check = column_or_damaged(db, "PRAGMA quick_check");
  if (check.empty() || check[0] != "ok") {
    std::string detail = "PRAGMA quick_check failed:";
    for (std::size_t i = 0; i < check.size() && i < 3; ++i) {
      detail += " " + check[i];
    }
    damaged(db, detail);
  }
}

RunMeta read_meta(const Db& db) {
  RunMeta meta;
  Stmt q(db, "SELECT key, value FROM meta");
  try {
    while (q.step()) {
      const std::string key = q.text(0);
      std::string value = q.text(1);
      if (key == "schema_version") {
        meta.schema_version = std::stoi(value);
      } else if (key == "trails_version") {
        meta.trails_version = std::move(value);
      } else if (key == "config_digest") {
        meta.config_digest = std::move(value);
      } else if (key == "config") {
        meta.config = nlohmann::json::parse(value);
      } else if (key == "effective_config") {
        meta.effective_config = nlohmann::json::parse(value);
      } else if (key == "engine_system") {
        meta.engine_system = nlohmann::json::parse(value);
      } else if (key == "created_at") {
        meta.created_at = std::move(value);
      } else if (key == "position_precision" && value != "exact") {
        meta.position_precision = nlohmann::json::parse(value).get<double>();
        if (!(meta.position_precision > 0.0)) {
          damaged(db, "meta.position_precision is '" + value + "', not > 0 or exact");
        }
      }
    }
  } catch (const nlohmann::json::exception& e) {
    damaged(db, std::string("meta holds invalid JSON: ") + e.what());
  } catch (const std::logic_error& e) {  // stoi
    damaged(db, std::string("meta holds an invalid value: ") + e.what());
  }
  return meta;
}

std::string utc_now_iso8601() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms.count()));
  return out;
}

}  // namespace trails::store::detail
