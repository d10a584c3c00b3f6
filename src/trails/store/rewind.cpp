#include "trails/store/rewind.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <string>

#include "trails/core/error.h"
#include "trails/store/run_store.h"
#include "trails/store/sqlite.h"

namespace trails::store {

void rewind_to(const std::filesystem::path& run_dir, std::int64_t iteration) {
  const int lock = ::open(run_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock < 0 || ::flock(lock, LOCK_EX | LOCK_NB) != 0) {
    if (lock >= 0) ::close(lock);
    throw core::UsageError(run_dir.string() +
                           " is being written by another trails process; --resume N waits for "
                           "nothing: run it when that one has stopped");
  }
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{lock};
  {
    detail::Db db(RunStore::ledger_path(run_dir), SQLITE_OPEN_READWRITE);
    detail::Transaction tx(db, "BEGIN IMMEDIATE");
    const auto has_table = [&](const char* name) {
      detail::Stmt q(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1");
      q.bind_text(1, name);
      return q.step() && q.int64(0) > 0;
    };
    if (has_table("config_changes")) {
      // A change first run at iteration + 1 is what a continuation from `iteration` runs too.
      detail::Stmt q(db,
                     "SELECT iteration, key FROM config_changes WHERE iteration > ?1 "
                     "ORDER BY iteration LIMIT 1");
      q.bind(1, iteration + 1);
      if (q.step()) {
        throw core::UsageError(
            "--resume " + std::to_string(iteration) + ": the configuration changed from " +
            "iteration " + std::to_string(q.int64(0)) + " on (" + q.text(1) +
            "); continuing from iteration " + std::to_string(iteration) +
            " would apply it to iterations that ran without it. Resume from iteration " +
            std::to_string(q.int64(0) - 1) + " or later, or start a new run");
      }
    }
    // Children before the iterations they reference.
    for (const char* table : {"msm_builds", "recycling", "element_attachments", "element_state",
                              "spawns", "walkers", "iterations"}) {
      if (!has_table(table)) continue;
      const std::string sql = std::string("DELETE FROM ") + table + " WHERE iteration > ?1";
      detail::Stmt del(db, sql.c_str());
      del.bind(1, iteration);
      del.run();
    }
    tx.commit();
  }
  // A read-write open sweeps the shards above the (new) last commit.
  (void)RunStore::open(run_dir, RunStore::Mode::ReadWrite, lock);
}

}  // namespace trails::store
