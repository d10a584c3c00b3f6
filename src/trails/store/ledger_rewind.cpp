// Ledger::drop_after: the iterations after N removed from every table, for `trails run
// --resume N` (RunStore::rewind_to; docs/reliability.md).
#include <string>

#include "trails/core/error.h"
#include "trails/store/ledger.h"

namespace trails::store::detail {

void Ledger::drop_after(std::int64_t iteration) {
  TRAILS_CHECK(writing_, "drop_after before begin_writes");
  // A change first run at iteration + 1 is what a continuation from `iteration` runs with too;
  // a later one would be applied to iterations that ran without it.
  for (const auto& c : config_changes()) {
    if (c.iteration > iteration + 1) {
      throw core::UsageError(
          "--resume " + std::to_string(iteration) + ": the configuration changed at iteration " +
          std::to_string(c.iteration) + " (" + c.key + "), after it; continuing from iteration " +
          std::to_string(iteration) + " would keep that change. Resume from iteration " +
          std::to_string(c.iteration) + " - 1 or later, or start a new run");
    }
  }
  Transaction tx(db_, "BEGIN IMMEDIATE");
  // Children before the iterations they reference.
  for (const char* table :
       {"msm_builds", "recycling", "element_state", "spawns", "walkers", "iterations"}) {
    if (!has_table(table)) continue;
    const std::string sql = std::string("DELETE FROM ") + table + " WHERE iteration > ?1";
    Stmt del(db_, sql.c_str());
    del.bind(1, iteration);
    del.run();
  }
  tx.commit();
}

}  // namespace trails::store::detail
