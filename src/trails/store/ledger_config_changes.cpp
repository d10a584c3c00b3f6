// The ledger's config_changes table: the keys a --resume changed, with the iteration each took
// effect in (docs/reliability.md, "What may change on resume"). Created by the first writer
// that records a change; ledgers without it were never changed on resume.
#include "trails/store/ledger.h"

#include <string>

#include "trails/core/error.h"
#include "trails/store/schema.h"

namespace trails::store::detail {
namespace {
constexpr const char* kChangesTable =
    "CREATE TABLE IF NOT EXISTS config_changes (seq INTEGER PRIMARY KEY, "
    "iteration INTEGER NOT NULL CHECK (iteration >= 0), key TEXT NOT NULL, before TEXT NOT NULL, "
    "after TEXT NOT NULL, changed_at TEXT NOT NULL)";
}  // namespace

void Ledger::put_config_changes(const std::vector<ConfigChange>& changes, const RunMeta& updated) {
  TRAILS_CHECK(writing_, "put_config_changes before begin_writes");
  Transaction tx(db_, "BEGIN IMMEDIATE");
  db_.exec(kChangesTable);
  Stmt put(db_,
           "INSERT INTO config_changes (iteration, key, before, after, changed_at) "
           "VALUES (?1, ?2, ?3, ?4, ?5)");
  const std::string now = utc_now_iso8601();
  for (const auto& c : changes) {
    put.bind(1, c.iteration)
        .bind_text(2, c.key)
        .bind_text(3, c.before.dump())
        .bind_text(4, c.after.dump())
        .bind_text(5, now)
        .run();
  }
  Stmt set(db_, "UPDATE meta SET value = ?2 WHERE key = ?1");
  set.bind_text(1, "config").bind_text(2, updated.config.dump()).run();
  set.bind_text(1, "config_digest").bind_text(2, updated.config_digest).run();
  set.bind_text(1, "effective_config").bind_text(2, updated.effective_config.dump()).run();
  set.bind_text(1, "engine_system").bind_text(2, updated.engine_system.dump()).run();
  // Changes only before the first commit (a ledger made before position grids has no row).
  Stmt precision(db_, "INSERT OR REPLACE INTO meta (key, value) VALUES ('position_precision', ?1)");
  precision.bind_text(1, position_precision_text(updated.position_precision)).run();
  tx.commit();
  meta_.config = updated.config;
  meta_.config_digest = updated.config_digest;
  meta_.effective_config = updated.effective_config;
  meta_.engine_system = updated.engine_system;
  meta_.position_precision = updated.position_precision;
}

std::vector<ConfigChange> Ledger::config_changes() const {
  std::vector<ConfigChange> out;
  for_each_added_row(
      "config_changes",
      "SELECT iteration, key, before, after, changed_at FROM config_changes ORDER BY seq",
      [&](const Stmt& q) {
        ConfigChange c;
        c.iteration = q.int64(0);
        c.key = q.text(1);
        const std::string what = "config_changes of iteration " + std::to_string(c.iteration);
        c.before = parse_json_column(q.text(2), what);
        c.after = parse_json_column(q.text(3), what);
        c.changed_at = q.text(4);
        out.push_back(std::move(c));
      });
  return out;
}

}  // namespace trails::store::detail
