// Thin RAII wrappers over the SQLite C API, private to the run store (include only from
// src/trails/store/*.cpp). Db owns one connection, Stmt one prepared statement. Every failure
// throws core::StoreError naming the ledger file, what was being done and SQLite's message.
// Not thread-safe: a connection and its statements are used by one thread at a time.
#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace trails::store::detail {

class Db {
 public:
  Db() = default;
  // Opens `path` with SQLite open flags (never SQLITE_OPEN_URI: the path is taken literally).
  Db(const std::filesystem::path& path, int flags);
  ~Db();
  Db(Db&& other) noexcept;
  Db& operator=(Db&& other) noexcept;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }
  std::string errmsg() const;
  // Runs one or more statements that return no rows we need.
  void exec(const char* sql) const;
  bool in_transaction() const { return db_ != nullptr && sqlite3_get_autocommit(db_) == 0; }
  [[noreturn]] void fail(std::string_view what) const;
  void close() noexcept;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Stmt {
 public:
  Stmt() = default;
  Stmt(const Db& db, const char* sql);
  ~Stmt();
  Stmt(Stmt&& other) noexcept;
  Stmt& operator=(Stmt&& other) noexcept;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // Parameters are 1-based like SQLite's. Text is copied; blobs are NOT copied and must stay
  // alive until the statement is reset (they point into the caller's record).
  Stmt& bind(int i, std::int64_t v);
  Stmt& bind(int i, double v);
  Stmt& bind_text(int i, std::string_view v);
  Stmt& bind_blob(int i, std::span<const std::byte> v);
  Stmt& bind_null(int i);

  // True when a row is available, false when done; throws StoreError on failure.
  bool step();
  // Runs a statement that returns no rows, then resets it for reuse.
  void run();
  void reset() noexcept;

  bool is_null(int col) const;
  int columns() const;      // columns of the result row
  int type(int col) const;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL
  std::int64_t int64(int col) const;
  double real(int col) const;  // NULL (a stored NaN) reads back as NaN
  std::string text(int col) const;
  std::span<const std::byte> blob(int col) const;  // valid until the next step/reset

 private:
  const Db* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

// Holds a read or write transaction open for its lifetime; rolls back unless commit() ran.
class Transaction {
 public:
  Transaction(const Db& db, const char* begin_sql);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  const Db& db_;
  bool open_ = true;
};

}  // namespace trails::store::detail
