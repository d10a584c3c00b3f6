#include "trails/store/sqlite.h"

#include <limits>
#include <utility>

#include "trails/core/error.h"

namespace trails::store::detail {

Db::Db(const std::filesystem::path& path, int flags) : path_(path.string()) {
  const int rc = sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    // sqlite3_open_v2 may hand back a handle even on failure; it carries the message.
    std::string msg = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    close();
    throw core::StoreError(path_ + ": cannot open: " + msg);
  }
  sqlite3_extended_result_codes(db_, 1);
}

Db::~Db() { close(); }

Db::Db(Db&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)) {}

Db& Db::operator=(Db&& other) noexcept {
  if (this != &other) {
    close();
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

void Db::close() noexcept {
  // close_v2 defers the real close until every statement is finalized, so the order in
  // which owners are destroyed cannot leak the connection.
  if (db_ != nullptr) {
    sqlite3_close_v2(std::exchange(db_, nullptr));
  }
}

std::string Db::errmsg() const { return db_ != nullptr ? sqlite3_errmsg(db_) : "no connection"; }

void Db::fail(std::string_view what) const {
  throw core::StoreError(path_ + ": " + std::string(what) + ": " + errmsg());
}

void Db::exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err != nullptr ? err : errmsg();
    sqlite3_free(err);
    throw core::StoreError(path_ + ": " + sql + ": " + msg);
  }
}

Stmt::Stmt(const Db& db, const char* sql) : db_(&db) {
  if (sqlite3_prepare_v3(db.get(), sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) !=
      SQLITE_OK) {
    db.fail(std::string("cannot prepare \"") + sql + "\"");
  }
}

Stmt::~Stmt() { sqlite3_finalize(stmt_); }

Stmt::Stmt(Stmt&& other) noexcept : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}

Stmt& Stmt::operator=(Stmt&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

namespace {
void check_bind(const Db& db, int rc, int i) {
  if (rc != SQLITE_OK) {
    db.fail("cannot bind parameter " + std::to_string(i));
  }
}
}  // namespace

Stmt& Stmt::bind(int i, std::int64_t v) {
  check_bind(*db_, sqlite3_bind_int64(stmt_, i, v), i);
  return *this;
}

Stmt& Stmt::bind(int i, double v) {
  check_bind(*db_, sqlite3_bind_double(stmt_, i, v), i);
  return *this;
}

Stmt& Stmt::bind_text(int i, std::string_view v) {
  check_bind(*db_, sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
             i);
  return *this;
}

Stmt& Stmt::bind_blob(int i, std::span<const std::byte> v) {
  // An empty span still binds an empty BLOB, not NULL.
  const int rc = v.empty() ? sqlite3_bind_zeroblob(stmt_, i, 0)
                           : sqlite3_bind_blob64(stmt_, i, v.data(), v.size(), SQLITE_STATIC);
  check_bind(*db_, rc, i);
  return *this;
}

Stmt& Stmt::bind_null(int i) {
  check_bind(*db_, sqlite3_bind_null(stmt_, i), i);
  return *this;
}

bool Stmt::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc == SQLITE_DONE) {
    return false;
  }
  std::string msg = sqlite3_errmsg(db_->get());
  const char* sql = sqlite3_sql(stmt_);
  reset();
  throw core::StoreError(db_->path() + ": \"" + (sql != nullptr ? sql : "") + "\": " + msg);
}

void Stmt::run() {
  while (step()) {
  }
  reset();
}

void Stmt::reset() noexcept {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Stmt::is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
int Stmt::columns() const { return sqlite3_column_count(stmt_); }
int Stmt::type(int col) const { return sqlite3_column_type(stmt_, col); }
std::int64_t Stmt::int64(int col) const { return sqlite3_column_int64(stmt_, col); }
double Stmt::real(int col) const {
  // SQLite stores a bound NaN as NULL; give it back as NaN rather than 0.
  return is_null(col) ? std::numeric_limits<double>::quiet_NaN()
                      : sqlite3_column_double(stmt_, col);
}

std::string Stmt::text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  const int n = sqlite3_column_bytes(stmt_, col);
  return p == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(p), n);
}

std::span<const std::byte> Stmt::blob(int col) const {
  const void* p = sqlite3_column_blob(stmt_, col);
  const int n = sqlite3_column_bytes(stmt_, col);
  if (p == nullptr || n == 0) {
    return {};
  }
  return {static_cast<const std::byte*>(p), static_cast<std::size_t>(n)};
}

Transaction::Transaction(const Db& db, const char* begin_sql) : db_(db) { db_.exec(begin_sql); }

Transaction::~Transaction() {
  if (open_ && db_.in_transaction()) {
    sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

void Transaction::commit() {
  db_.exec("COMMIT");  // on failure open_ stays true and the destructor rolls back
  open_ = false;
}

}  // namespace trails::store::detail
