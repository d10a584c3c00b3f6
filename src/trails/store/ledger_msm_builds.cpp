// The ledger's msm_builds table: one row per in-loop MSM build, created by the first writer that
// needs it (ledgers without it simply have no builds).
#include "trails/store/ledger.h"

#include <string>

#include "trails/core/error.h"
#include "trails/store/schema.h"

namespace trails::store::detail {
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
  std::vector<MsmBuildRow> out;
  for_each_added_row("msm_builds",
                     "SELECT iteration, build_s, model FROM msm_builds ORDER BY iteration",
                     [&](const Stmt& q) {
                       MsmBuildRow r;
                       r.iteration = q.int64(0);
                       r.build_s = q.real(1);
                       r.model = parse_json_column(q.text(2), "msm_builds.model of iteration " +
                                                                  std::to_string(r.iteration));
                       out.push_back(std::move(r));
                     });
  return out;
}

}  // namespace trails::store::detail
