// The rows checksum of each committed iteration (iterations.rows_checksum, docs/file-formats.md):
// a value edited in ledger.sqlite after the commit (a CV, a weight, a spawn, element state) is a
// CorruptionError naming the iteration on every read that uses it, which PRAGMA quick_check
// cannot see; equal records give equal checksums; a ledger without the column still reads.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "store_test_util.h"
#include "trails/core/error.h"

namespace trails::store::test {
namespace {

using Mode = RunStore::Mode;

std::string column_text(const fs::path& db, const std::string& query) {
  sqlite3* h = nullptr;
  sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, query.c_str(), -1, &st, nullptr);
  std::string out;
  while (sqlite3_step(st) == SQLITE_ROW) {
    out += reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    out += ' ';
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

// Flips the lowest bit of the first CV byte of one walker, in place (the lowest mantissa bit).
void flip_cv_bit(const fs::path& db, std::int64_t iteration, std::int64_t walker) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT cvs FROM walkers WHERE iteration = ?1 AND walker = ?2", -1, &st,
                     nullptr);
  sqlite3_bind_int64(st, 1, iteration);
  sqlite3_bind_int64(st, 2, walker);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(st, 0));
  std::vector<unsigned char> blob(p, p + sqlite3_column_bytes(st, 0));
  sqlite3_finalize(st);
  ASSERT_FALSE(blob.empty());
  blob[0] ^= 1U;
  sqlite3_prepare_v2(h, "UPDATE walkers SET cvs = ?3 WHERE iteration = ?1 AND walker = ?2", -1, &st,
                     nullptr);
  sqlite3_bind_int64(st, 1, iteration);
  sqlite3_bind_int64(st, 2, walker);
  sqlite3_bind_blob(st, 3, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
  EXPECT_EQ(sqlite3_step(st), SQLITE_DONE);
  sqlite3_finalize(st);
  sqlite3_close(h);
}

template <class Fn>
std::string corruption_of(Fn&& fn) {
  try {
    fn();
  } catch (const core::CorruptionError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no CorruptionError";
  return {};
}

class VerifiedRowsTest : public StoreTest {
 protected:
  fs::path ledger() const { return RunStore::ledger_path(dir_); }
  void commit_three() {
    auto store = RunStore::create(dir_, test_meta());
    for (int i = 0; i < 3; ++i) store.commit(make_record(i));
  }
  // Every read that hands out rows of iteration 1 fails, naming it; iteration 0 still reads.
  void expect_iteration_1_refused() {
    auto store = RunStore::open(dir_, Mode::ReadOnly);
    for (const auto& msg : {corruption_of([&] { store.load_iterations(); }),
                            corruption_of([&] { store.summaries(); }),
                            corruption_of([&] { store.walker_placements(1); }), corruption_of([&] {
                              const std::vector<core::FrameKey> keys = {{1, 0, 0}};
                              store.load_positions(keys);
                            }),
                            corruption_of([&] { store.load_element_state(1, "resolution", 1); })}) {
      EXPECT_NE(msg.find("iteration 1 "), std::string::npos) << msg;
      EXPECT_NE(msg.find("ledger.sqlite"), std::string::npos) << msg;
      EXPECT_NE(msg.find("restore"), std::string::npos) << msg;
    }
    EXPECT_EQ(store.walker_placements(0).size(), 4u);
    EXPECT_THROW(RunStore::open(dir_, Mode::ReadWrite).load_iterations(), core::CorruptionError);
  }
};

TEST_F(VerifiedRowsTest, EveryIterationRecordsAChecksum) {
  commit_three();
  const std::string sums = column_text(ledger(), "SELECT rows_checksum FROM iterations");
  EXPECT_EQ(sums.size(), 3u * 9u) << sums;  // three 8-digit checksums
  EXPECT_EQ(RunStore::open(dir_, Mode::ReadOnly).load_iterations().size(), 3u);
}

TEST_F(VerifiedRowsTest, OneFlippedCvBitIsCaught) {
  commit_three();
  flip_cv_bit(ledger(), 1, 1);
  EXPECT_EQ(RunStore::open(dir_, Mode::ReadOnly).walker_placements(0).size(), 4u);
  expect_iteration_1_refused();
}

TEST_F(VerifiedRowsTest, EditedWeightSpawnOrStateIsCaught) {
  for (const char* edit :
       {"UPDATE walkers SET weight = weight * 2 WHERE iteration = 1 AND walker = 0",
        "UPDATE spawns SET source_frame = source_frame + 1 WHERE iteration = 1 AND slot = 0",
        "UPDATE element_state SET blob = CAST('0.5' AS BLOB) WHERE iteration = 1 AND "
        "key = 'resolution'",
        "UPDATE iterations SET rows_checksum = '' WHERE iteration = 1"}) {
    SCOPED_TRACE(edit);
    fs::remove_all(dir_);
    commit_three();
    sql(ledger(), edit);
    expect_iteration_1_refused();
  }
}

TEST_F(VerifiedRowsTest, EqualRecordsGiveEqualChecksums) {
  commit_three();
  const std::string first = column_text(ledger(), "SELECT rows_checksum FROM iterations");
  fs::remove_all(dir_);
  commit_three();
  EXPECT_EQ(column_text(ledger(), "SELECT rows_checksum FROM iterations"), first);
}

TEST_F(VerifiedRowsTest, LedgerWithoutTheColumnIsReadUnverified) {
  // An older Trails wrote no rows_checksum column: its rows read (and commit) unverified.
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(make_record(0));
  }
  sql(ledger(), "ALTER TABLE iterations DROP COLUMN rows_checksum");
  {
    auto store = RunStore::open(dir_, Mode::ReadWrite);
    store.commit(make_record(1));
  }
  sql(ledger(), "UPDATE walkers SET weight = weight * 2 WHERE iteration = 1 AND walker = 0");
  EXPECT_EQ(RunStore::open(dir_, Mode::ReadOnly).load_iterations().size(), 2u);
}

}  // namespace
}  // namespace trails::store::test
