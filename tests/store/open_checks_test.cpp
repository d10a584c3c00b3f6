// What opening a run directory checks and what it may touch: foreign, truncated, garbage and
// newer ledgers are refused with an InputError and leave the directory exactly as it was;
// read-write opens sweep uncommitted leftovers, read-only opens never write; shard damage is
// a CorruptionError; readers work while a writer commits; one writer per directory.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "store_test_util.h"
#include "support/compare.h"
#include "trails/core/error.h"

namespace trails::store::test {
namespace {

using Mode = RunStore::Mode;

std::string sql_text(const fs::path& db, const std::string& query) {
  sqlite3* h = nullptr;
  sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, query.c_str(), -1, &st, nullptr);
  std::string out;
  if (sqlite3_step(st) == SQLITE_ROW) {
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

template <class Error>
std::string open_error(const fs::path& dir, Mode mode) {
  try {
    RunStore::open(dir, mode);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "open of " << dir << " did not throw the expected error";
  return {};
}

class OpenChecksTest : public StoreTest {
 protected:
  // A closed run with iterations 0 and 1, plus leftovers an open for writing would sweep.
  void make_run_with_leftovers() {
    {
      auto store = RunStore::create(dir_, test_meta());
      store.commit(make_record(0));
      store.commit(make_record(1));
    }
    write_bytes(dir_ / "shards" / "iter_000002.h5", {'x'});
    write_bytes(dir_ / "shards" / "iter_000002.h5.tmp", {'y'});
  }

  // Both modes refuse with an InputError containing `expected`, and nothing changes on disk.
  void expect_refused_untouched(const std::string& expected) {
    const auto before = snapshot(dir_);
    for (auto mode : {Mode::ReadOnly, Mode::ReadWrite}) {
      const std::string msg = open_error<core::InputError>(dir_, mode);
      EXPECT_TRUE(trails::test_support::contains(msg, expected)) << msg;
      EXPECT_TRUE(trails::test_support::contains(msg, "nothing was changed")) << msg;
    }
    EXPECT_EQ(snapshot(dir_), before);
  }
};

TEST_F(OpenChecksTest, ForeignDirectoryIsNotARun) {
  for (auto mode : {Mode::ReadOnly, Mode::ReadWrite}) {
    const std::string msg = open_error<core::InputError>(dir_, mode);
    EXPECT_TRUE(
        trails::test_support::contains(msg, "is not a Trails run directory (no ledger.sqlite)"))
        << msg;
  }
  EXPECT_FALSE(fs::exists(dir_));  // not created by a failed open
  fs::create_directories(dir_);
  write_bytes(dir_ / "notes.txt", {'h', 'i'});
  const auto before = snapshot(dir_);
  EXPECT_FALSE(RunStore::exists(dir_));
  const std::string msg = open_error<core::InputError>(dir_, Mode::ReadWrite);
  EXPECT_TRUE(trails::test_support::contains(msg, "no ledger.sqlite")) << msg;
  EXPECT_EQ(snapshot(dir_), before);
}

TEST_F(OpenChecksTest, TruncatedLedgerIsRefusedUntouched) {
  make_run_with_leftovers();
  fs::resize_file(RunStore::ledger_path(dir_), 100);
  expect_refused_untouched("is damaged or not a Trails ledger");
}

TEST_F(OpenChecksTest, LedgerTruncatedToWholePagesIsRefusedUntouched) {
  make_run_with_leftovers();
  fs::resize_file(RunStore::ledger_path(dir_), 4096);  // header intact, tables gone
  expect_refused_untouched("is damaged or not a Trails ledger");
}

TEST_F(OpenChecksTest, GarbageLedgerIsRefusedUntouched) {
  make_run_with_leftovers();
  std::vector<char> garbage(8192);
  for (std::size_t i = 0; i < garbage.size(); ++i) {
    garbage[i] = static_cast<char>(i * 131 + 7);
  }
  write_bytes(RunStore::ledger_path(dir_), garbage);
  expect_refused_untouched("not a database");
}

TEST_F(OpenChecksTest, ForeignSqliteDatabaseIsRefusedUntouched) {
  fs::create_directories(dir_ / "shards");
  // Even a WAL-mode database without its -wal file: SQLite would create -wal/-shm on first
  // read, so the identity check must come before any statement.
  sql(RunStore::ledger_path(dir_),
      "PRAGMA journal_mode=WAL; CREATE TABLE meta (key TEXT, value TEXT);"
      "INSERT INTO meta VALUES ('application', 'trails-run-store')");
  ASSERT_FALSE(fs::exists(dir_ / "ledger.sqlite-wal"));
  write_bytes(dir_ / "shards" / "iter_000000.h5", {'x'});
  expect_refused_untouched("application_id");
}

TEST_F(OpenChecksTest, NewerSchemaIsRefused) {
  make_run_with_leftovers();
  const auto ledger = RunStore::ledger_path(dir_);
  const int newer = kSchemaVersion + 1;
  sql(ledger, "PRAGMA user_version=" + std::to_string(newer));
  const auto before = snapshot(dir_);
  const std::string expected = "written by a newer Trails (schema " + std::to_string(newer) +
                               " > " + std::to_string(kSchemaVersion) + "); use that version";
  for (auto mode : {Mode::ReadOnly, Mode::ReadWrite}) {
    const std::string msg = open_error<core::InputError>(dir_, mode);
    EXPECT_TRUE(trails::test_support::contains(msg, expected)) << msg;
  }
  EXPECT_EQ(snapshot(dir_), before);
  sql(ledger, "PRAGMA user_version=" + std::to_string(kSchemaVersion) +
                  "; UPDATE meta SET value='" + std::to_string(newer) +
                  "' WHERE key='schema_version'");
  EXPECT_TRUE(
      trails::test_support::contains(open_error<core::InputError>(dir_, Mode::ReadOnly), "newer"));
}

TEST_F(OpenChecksTest, ReadWriteOpenSweepsUncommittedLeftovers) {
  make_run_with_leftovers();
  write_bytes(dir_ / "shards" / "iter_000001.h5.tmp", {'z'});
  write_bytes(dir_ / "ledger.sqlite.tmp", {'z'});  // a create() that died midway
  auto store = RunStore::open(dir_, Mode::ReadWrite);
  EXPECT_EQ(store.last_committed(), 1);
  EXPECT_FALSE(fs::exists(dir_ / "shards" / "iter_000002.h5"));
  EXPECT_FALSE(fs::exists(dir_ / "shards" / "iter_000002.h5.tmp"));
  EXPECT_FALSE(fs::exists(dir_ / "shards" / "iter_000001.h5.tmp"));
  EXPECT_FALSE(fs::exists(dir_ / "ledger.sqlite.tmp"));
  EXPECT_TRUE(fs::exists(dir_ / "shards" / "iter_000000.h5"));
  EXPECT_TRUE(fs::exists(dir_ / "shards" / "iter_000001.h5"));
  store.commit(make_record(2));
}

TEST_F(OpenChecksTest, ReadOnlyOpenWritesNothing) {
  make_run_with_leftovers();
  const auto before = snapshot(dir_);
  {
    auto store = RunStore::open(dir_, Mode::ReadOnly);
    EXPECT_EQ(store.last_committed(), 1);
    EXPECT_EQ(store.load_iterations().size(), 2u);
    EXPECT_EQ(store.summaries().size(), 2u);
    const std::vector<core::FrameKey> keys = {{1, 0, 0}};
    EXPECT_EQ(store.load_positions(keys).size(), 1u);
    EXPECT_THROW(store.commit(make_record(2)), core::InternalError);
  }
  EXPECT_EQ(snapshot(dir_), before);  // no sweep, no -wal/-shm
}

TEST_F(OpenChecksTest, ChecksumMismatchIsCorruption) {
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(make_record(0));
  }
  const auto ledger = RunStore::ledger_path(dir_);
  const std::string recorded =
      sql_text(ledger, "SELECT shard_checksum FROM iterations WHERE iteration = 0");
  ASSERT_EQ(recorded.size(), 8u);
  const fs::path shard = dir_ / "shards" / "iter_000000.h5";
  auto bytes = read_bytes(shard);
  bytes[bytes.size() / 2] ^= 0x01;  // same size: only the checksum can tell
  write_bytes(shard, bytes);
  for (auto mode : {Mode::ReadOnly, Mode::ReadWrite}) {
    auto store = RunStore::open(dir_, mode);
    const std::vector<core::FrameKey> keys = {{0, 0, 0}};
    try {
      store.load_positions(keys);
      FAIL() << "a damaged shard must be reported";
    } catch (const core::CorruptionError& e) {
      const std::string msg = e.what();
      EXPECT_TRUE(trails::test_support::contains(msg, shard.string())) << msg;
      EXPECT_TRUE(trails::test_support::contains(msg, recorded)) << msg;
      EXPECT_TRUE(trails::test_support::contains(msg, "the file has")) << msg;
    }
  }
}

TEST_F(OpenChecksTest, MissingOrResizedShardIsCorruptionOnEveryOpen) {
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(make_record(0));
  }
  const fs::path shard = dir_ / "shards" / "iter_000000.h5";
  auto bytes = read_bytes(shard);
  bytes.push_back('!');
  write_bytes(shard, bytes);
  EXPECT_TRUE(trails::test_support::contains(
      open_error<core::CorruptionError>(dir_, Mode::ReadWrite), "bytes"));
  // Read-only opens (status, export, plot, msm, analyze) check the same (docs/reliability.md).
  EXPECT_TRUE(trails::test_support::contains(
      open_error<core::CorruptionError>(dir_, Mode::ReadOnly), "bytes"));
  fs::remove(shard);
  EXPECT_TRUE(trails::test_support::contains(
      open_error<core::CorruptionError>(dir_, Mode::ReadWrite), "missing"));
  EXPECT_TRUE(trails::test_support::contains(
      open_error<core::CorruptionError>(dir_, Mode::ReadOnly), "missing"));
}

TEST_F(OpenChecksTest, ReaderFollowsAWriterThatCommits) {
  auto writer = RunStore::create(dir_, test_meta());
  const auto r0 = make_record(0);
  const auto r1 = make_record(1);
  writer.commit(r0);
  {
    auto reader = RunStore::open(dir_, Mode::ReadOnly);
    EXPECT_EQ(reader.last_committed(), 0);
    writer.commit(r1);
    EXPECT_EQ(reader.last_committed(), 1);
    const auto loaded = reader.load_iterations();
    ASSERT_EQ(loaded.size(), 2u);
    expect_same_record(loaded[1], r1);
    const std::vector<core::FrameKey> keys = {{1, 3, 2}};
    EXPECT_TRUE(same_bits(reader.load_positions(keys)[0], frame_positions(r1, 3, 2)));
    // The writer closes first while the reader stays attached.
    writer = RunStore::open(dir_, Mode::ReadOnly);
    EXPECT_EQ(reader.summaries().size(), 2u);
  }
  writer = RunStore::open(dir_, Mode::ReadWrite);
  writer.commit(make_record(2));
  EXPECT_EQ(RunStore::open(dir_, Mode::ReadOnly).last_committed(), 2);
}

TEST_F(OpenChecksTest, OneWriterPerDirectory) {
  auto writer = RunStore::create(dir_, test_meta());
  writer.commit(make_record(0));
  const std::string msg = open_error<core::InputError>(dir_, Mode::ReadWrite);
  EXPECT_TRUE(trails::test_support::contains(msg, "already open for writing")) << msg;
  writer.commit(make_record(1));  // the refused second writer did not disturb the first
  EXPECT_EQ(writer.last_committed(), 1);
}

}  // namespace
}  // namespace trails::store::test
