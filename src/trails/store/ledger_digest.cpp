// Checksums of the ledger rows that restarts and exports read (docs/file-formats.md,
// iterations.rows_checksum; docs/reliability.md, what is verified on read). PRAGMA quick_check
// sees only SQLite's own structure, not an edited value, so each committed iteration records a
// CRC-32 of its rows, computed from the rows themselves inside the commit's transaction, and
// readers recompute it before they use the rows.
#include <zlib.h>

#include <array>
#include <cstdio>
#include <string>

#include "trails/core/error.h"
#include "trails/store/ledger.h"

namespace trails::store::detail {
namespace {

// The rows covered, each query by iteration in a fixed order. Timings, hosts, devices and
// committed_at are left out: nothing is computed from them.
constexpr const char* kIterationSql =
    "SELECT iteration, successful_walkers, failed_walkers, frames, cumulative_frames, "
    "occupied_bins, total_bins, n_bins, cv_dim, n_atoms, spatial_dim, stride, dt, shard_file, "
    "shard_bytes, shard_checksum FROM iterations WHERE iteration = ?1";
constexpr const char* kWalkersSql =
    "SELECT walker, seed, ok, error, n_frames, first_row, parent_key, weight, cvs FROM walkers "
    "WHERE iteration = ?1 ORDER BY walker";
constexpr const char* kSpawnsSql =
    "SELECT slot, pool_index, source_iteration, source_walker, source_frame FROM spawns "
    "WHERE iteration = ?1 ORDER BY slot";
constexpr const char* kElementsSql =
    "SELECT key, version, blob FROM element_state WHERE iteration = ?1 ORDER BY key";

class Crc {
 public:
  void add(const void* data, std::size_t n) {
    const auto* p = static_cast<const Bytef*>(data);
    while (n > 0) {  // crc32() takes a uInt length
      const auto step = static_cast<uInt>(std::min<std::size_t>(n, 1U << 30));
      crc_ = crc32(crc_, p, step);
      p += step;
      n -= step;
    }
  }
  void add_u64(std::uint64_t v) {
    std::array<unsigned char, 8> le{};
    for (std::size_t i = 0; i < le.size(); ++i) le[i] = static_cast<unsigned char>(v >> (8 * i));
    add(le.data(), le.size());
  }
  // Every column of the current row: a type tag, then the value (integers and reals as 8
  // little-endian bytes, text and blobs as their length and bytes).
  void add_row(const Stmt& q) {
    for (int c = 0; c < q.columns(); ++c) {
      const int type = q.type(c);
      const auto tag = static_cast<unsigned char>(type);
      add(&tag, 1);
      if (type == SQLITE_INTEGER) {
        add_u64(static_cast<std::uint64_t>(q.int64(c)));
      } else if (type == SQLITE_FLOAT) {
        add_u64(std::bit_cast<std::uint64_t>(q.real(c)));
      } else if (type == SQLITE_TEXT || type == SQLITE_BLOB) {
        const auto bytes = q.blob(c);
        add_u64(bytes.size());
        add(bytes.data(), bytes.size());
      }
    }
  }
  // Marks the end of one table's rows, so that rows cannot move between tables unnoticed.
  void end_table(std::uint64_t rows) { add_u64(rows); }
  std::string hex() const {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08lx", crc_ & 0xffffffffUL);
    return buf;
  }

 private:
  uLong crc_ = crc32(0L, Z_NULL, 0);
};

}  // namespace

void Ledger::prepare_digests() {
  Stmt cols(db_,
            "SELECT count(*) FROM pragma_table_info('iterations') WHERE name = 'rows_checksum'");
  has_rows_checksum_ = cols.step() && cols.int64(0) == 1;
  if (!has_rows_checksum_) return;
  digest_queries_[0] = Stmt(db_, kIterationSql);
  digest_queries_[1] = Stmt(db_, kWalkersSql);
  digest_queries_[2] = Stmt(db_, kSpawnsSql);
  digest_queries_[3] = Stmt(db_, kElementsSql);
  stored_digest_ = Stmt(db_, "SELECT rows_checksum FROM iterations WHERE iteration = ?1");
}

std::string Ledger::rows_digest(std::int64_t iteration) const {
  Crc crc;
  for (auto& q : digest_queries_) {
    q.bind(1, iteration);
    std::uint64_t rows = 0;
    try {
      while (q.step()) {
        crc.add_row(q);
        ++rows;
      }
    } catch (...) {
      q.reset();
      throw;
    }
    q.reset();
    crc.end_table(rows);
  }
  return crc.hex();
}

void Ledger::verify_rows(std::int64_t iteration) const {
  if (!has_rows_checksum_ || verified_.contains(iteration)) return;
  stored_digest_.bind(1, iteration);
  const bool found = stored_digest_.step();
  const std::string stored = found ? stored_digest_.text(0) : std::string();
  stored_digest_.reset();
  if (!found) return;  // not committed: the caller reports that in its own words
  const std::string actual = rows_digest(iteration);
  if (stored != actual) {
    throw core::CorruptionError(
        db_.path() + ": the rows of iteration " + std::to_string(iteration) +
        " (CVs, walkers, spawns or element state) do not match the checksum recorded when they "
        "were committed (recorded '" +
        stored + "', now " + actual +
        "): the ledger was changed after the commit. Nothing was read from it; restore the "
        "run directory from a backup, or start the campaign again in a new outdir");
  }
  verified_.insert(iteration);  // committed rows never change, so once is enough
}

void Ledger::verify_all_rows() const {
  if (!has_rows_checksum_) return;
  std::vector<std::int64_t> iterations;
  {
    Stmt q(db_, "SELECT iteration FROM iterations ORDER BY iteration");
    while (q.step()) iterations.push_back(q.int64(0));
  }
  for (const auto it : iterations) verify_rows(it);
}

void Ledger::record_rows_digest(std::int64_t iteration) {
  if (!has_rows_checksum_) return;  // an older ledger keeps its shape (no migration)
  const std::string digest = rows_digest(iteration);
  Stmt put(db_, "UPDATE iterations SET rows_checksum = ?1 WHERE iteration = ?2");
  put.bind_text(1, digest).bind(2, iteration).run();
}

}  // namespace trails::store::detail
