// The run store's SQLite ledger (private to src/trails/store/; tables in docs/file-formats.md).
// Opening validates before anything is written; a read-write ledger runs in WAL mode with
// synchronous=FULL and goes back to rollback-journal mode on close, so a closed ledger is one
// self-contained file that read-only openers can use without creating -wal/-shm files.
// One thread at a time; every SQLite failure is a StoreError naming the ledger.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "trails/store/records.h"
#include "trails/store/run_store.h"
#include "trails/store/sqlite.h"

namespace trails::store::detail {

struct ShardInfo {
  std::string file;  // relative to the run directory: "shards/iter_000007.h5"
  std::int64_t bytes = 0;
  std::string checksum;  // CRC-32 of the file, 8 hex digits
};

struct ShardLocation {
  std::int64_t iteration = 0;
  ShardInfo shard;
  std::int64_t n_atoms = 0;
  std::int64_t spatial_dim = 0;
};

struct WalkerRow {
  std::int64_t walker = 0;
  bool ok = false;
  std::int64_t n_frames = 0;
  std::int64_t first_row = 0;  // shard row of frame 0 (ok walkers only)
};

class Ledger {
 public:
  // Opens and validates (InputError on a foreign, damaged or newer ledger); reads only.
  Ledger(const std::filesystem::path& file, RunStore::Mode mode);
  ~Ledger();
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // Read-write ledgers only: switches to WAL mode and prepares the inserts. Separate from
  // opening so that the caller can take its writer lock between validation and any write.
  void begin_writes();

  const RunMeta& meta() const { return meta_; }
  std::optional<std::int64_t> last_committed() const;

  // Inserts the iteration's rows in one BEGIN IMMEDIATE transaction; `before_commit` runs
  // right before COMMIT (the crash point). Rolls back on any failure.
  void insert(const IterationRecord& record, const ShardInfo& shard,
              const std::function<void()>& before_commit);

  std::vector<IterationSummary> summaries() const;
  std::vector<IterationRecord> load_iterations() const;
  std::vector<ShardLocation> shards() const;
  std::optional<ShardLocation> shard_of(std::int64_t iteration) const;
  std::vector<WalkerRow> walker_rows(std::int64_t iteration) const;
  // Where each walker of `iteration` ran, with its seed, status and timings (no CVs).
  std::vector<WalkerRecord> walker_placements(std::int64_t iteration) const;

  // One element's state blob of a committed iteration (table element_state), if stored.
  struct ElementBlob {
    int version = 0;
    nlohmann::json value;
  };
  std::optional<ElementBlob> element_state(std::int64_t iteration, const std::string& key) const;
  std::map<std::string, ElementBlob> element_states(std::int64_t iteration) const;

  // In-loop MSM builds (table msm_builds, added by the first writer that needs it; ledgers
  // without it simply have no builds). put_msm_build replaces a row of the same iteration.
  void put_msm_build(std::int64_t iteration, double build_s, const std::string& model_json);
  std::vector<MsmBuildRow> msm_builds() const;
  // Weighted-ensemble recycling (table recycling, written inside insert(); ledger_recycling.cpp).
  std::vector<RecyclingRow> recycling() const;

  // Keys changed on resume (table config_changes, added by the first writer that records one)
  // and the new meta values, in one transaction; meta() follows.
  void put_config_changes(const std::vector<ConfigChange>& changes, const RunMeta& updated);
  std::vector<ConfigChange> config_changes() const;

  // Recomputes the checksum of a committed iteration's rows (iterations.rows_checksum) and
  // throws CorruptionError naming the iteration on a mismatch; once per iteration and
  // connection. A ledger without the column (an older Trails) is not verifiable: no-op.
  void verify_rows(std::int64_t iteration) const;
  void verify_all_rows() const;

  // Tables added after schema 2 (msm_builds, config_changes) exist only once a writer made one.
  bool has_table(const char* name) const;
  // Calls fn(row) for every row that `select` reads from `table`, one of the tables added after
  // schema 2, in one read snapshot; no call when the table does not exist yet.
  void for_each_added_row(const char* table, const char* select,
                          const std::function<void(const Stmt&)>& fn) const;
  // A JSON column's text; CorruptionError naming the ledger and `what` when it does not parse.
  nlohmann::json parse_json_column(const std::string& text, const std::string& what) const;

  // A consistent snapshot across several reads while another process commits.
  Transaction read_snapshot() const { return Transaction(db_, "BEGIN DEFERRED"); }

 private:
  void close_writer() noexcept;
  void insert_recycling(const IterationRecord& r);
  // Warns when meta.writer is 'open' (a writer that never closed) but there was no -wal file
  // before this open: the commits that were only in the WAL are gone (docs/reliability.md).
  void warn_if_wal_lost(bool had_wal) const;
  // The rows checksum (ledger_digest.cpp): prepare_digests() detects the column and prepares
  // its queries; rows_digest() computes it from the stored rows; record_rows_digest() stores it
  // inside insert()'s transaction, after the rows.
  void prepare_digests();
  std::string rows_digest(std::int64_t iteration) const;
  void record_rows_digest(std::int64_t iteration);
  // insert() in steps, inside its transaction: the walkers rows (CVs as blobs), the spawns rows,
  // and one element_state row per top-level key of r.state.
  void insert_walkers(const IterationRecord& r);
  void insert_spawns(const IterationRecord& r);
  void insert_elements(const IterationRecord& r);
  // load_iterations() in steps: the iterations rows, then their walkers (with CVs) and spawns.
  std::vector<IterationRecord> load_iteration_rows() const;
  void load_walkers(std::vector<IterationRecord>& records) const;
  void load_spawns(std::vector<IterationRecord>& records) const;
  // Calls fn(iteration, key, version, value) for every element_state row, by iteration, key.
  void for_each_element(
      const std::function<void(std::int64_t, std::string, int, nlohmann::json)>& fn) const;

  Db db_;
  RunStore::Mode mode_;
  bool writing_ = false;
  RunMeta meta_;
  bool has_device_columns_ = false;  // walkers.device / visible_devices (a table without them)
  // Statements are prepared once: a commit is a handful of inserts, reads are frequent.
  mutable Stmt last_;
  Stmt insert_iteration_;
  Stmt insert_walker_;
  Stmt insert_spawn_;
  Stmt insert_element_;
  mutable Stmt shard_of_;
  mutable Stmt walker_rows_;
  bool has_rows_checksum_ = false;
  mutable std::array<Stmt, 4> digest_queries_;
  mutable Stmt stored_digest_;
  mutable std::set<std::int64_t> verified_;
};

}  // namespace trails::store::detail
