// The ledger's recycling table: the weighted ensemble's recycled flux per iteration
// (docs/file-formats.md), written in the iteration's own commit transaction, so it is never
// ahead of or behind the iterations; created by the first iteration that recycles.
#include <string>

#include "trails/store/ledger.h"

namespace trails::store::detail {
namespace {
constexpr const char* kRecyclingTable =
    "CREATE TABLE IF NOT EXISTS recycling (iteration INTEGER PRIMARY KEY REFERENCES iterations "
    "(iteration), flux REAL NOT NULL, walkers INTEGER NOT NULL)";
}  // namespace

void Ledger::insert_recycling(const IterationRecord& r) {
  if (!r.recycled_flux) return;
  db_.exec(kRecyclingTable);
  Stmt put(db_, "INSERT INTO recycling (iteration, flux, walkers) VALUES (?1, ?2, ?3)");
  put.bind(1, r.iteration).bind(2, *r.recycled_flux).bind(3, r.recycled_walkers);
  put.run();
}

std::vector<RecyclingRow> Ledger::recycling() const {
  std::vector<RecyclingRow> out;
  for_each_added_row("recycling",
                     "SELECT iteration, flux, walkers FROM recycling ORDER BY iteration",
                     [&](const Stmt& q) {
                       out.push_back({q.int64(0), q.real(1), q.int64(2)});
                     });
  return out;
}

}  // namespace trails::store::detail
