#include "search/sqlite.hpp"

#include <cstring>
#include <string>

#include "sieve/error.hpp"

namespace sieve::search {

Database::Database(const std::filesystem::path& file, Mode mode) : file_(file) {
  sqlite3* raw = nullptr;
  const int flags = (mode == Mode::kReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                    SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(file.c_str(), &raw, flags, nullptr);
  db_.reset(raw);
  if (rc != SQLITE_OK) {
    const std::string why = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    throw Error(rc == SQLITE_CANTOPEN ? ErrorCode::kNotFound : ErrorCode::kRuntime,
                "cannot open index database " + file.string() + ": " + why);
  }
  sqlite3_extended_result_codes(raw, 1);
  // A writer holds the lock for one document group at a time; readers and a
  // second writer wait that long instead of failing at once.
  sqlite3_busy_timeout(raw, 30000);
}

void Database::fail(std::string_view what) const {
  const int rc = sqlite3_extended_errcode(db_.get());
  std::string message =
      "index database " + file_.string() + ": " + std::string(what) + ": " + sqlite3_errmsg(db_.get());
  const int primary = rc & 0xff;
  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) throw Error(ErrorCode::kParse, message);
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) throw Error(ErrorCode::kOverloaded, message);
  throw Error(ErrorCode::kRuntime, message);
}

void Database::exec(std::string_view sql) {
  const std::string text(sql);
  if (sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail(text);
}

Statement Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(db_.get(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt,
                         nullptr) != SQLITE_OK) {
    fail(sql);
  }
  return {*this, stmt};
}

std::int64_t Database::last_insert_rowid() const {
  return sqlite3_last_insert_rowid(db_.get());
}
int Database::changes() const {
  return sqlite3_changes(db_.get());
}

Statement& Statement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(stmt_.get(), index, value) != SQLITE_OK) db_->fail("bind");
  return *this;
}
Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_.get(), index, value) != SQLITE_OK) db_->fail("bind");
  return *this;
}
Statement& Statement::bind(int index, std::string_view text) {
  if (sqlite3_bind_text64(stmt_.get(), index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8) != SQLITE_OK) {
    db_->fail("bind");
  }
  return *this;
}
Statement& Statement::bind_blob(int index, std::span<const float> values) {
  if (sqlite3_bind_blob64(stmt_.get(), index, values.data(), values.size_bytes(), SQLITE_TRANSIENT) != SQLITE_OK) {
    db_->fail("bind");
  }
  return *this;
}
Statement& Statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_.get(), index) != SQLITE_OK) db_->fail("bind");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail(sqlite3_sql(stmt_.get()));
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
}

std::int64_t Statement::integer(int column) const {
  return sqlite3_column_int64(stmt_.get(), column);
}
double Statement::real(int column) const {
  return sqlite3_column_double(stmt_.get(), column);
}
std::string Statement::text(int column) const {
  return std::string(text_view(column));
}
std::string_view Statement::text_view(int column) const {
  const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(stmt_.get(), column));
  if (data == nullptr) return {};
  return {data, static_cast<std::size_t>(sqlite3_column_bytes(stmt_.get(), column))};
}
std::span<const float> Statement::floats(int column) const {
  const void* data = sqlite3_column_blob(stmt_.get(), column);
  const auto bytes = static_cast<std::size_t>(sqlite3_column_bytes(stmt_.get(), column));
  if (data == nullptr || bytes % sizeof(float) != 0) return {};
  return {static_cast<const float*>(data), bytes / sizeof(float)};
}
bool Statement::is_null(int column) const {
  return sqlite3_column_type(stmt_.get(), column) == SQLITE_NULL;
}

int Statement::columns() const {
  return sqlite3_column_count(stmt_.get());
}

Transaction::Transaction(Database& db, Kind kind) : db_(&db) {
  db.exec(kind == Kind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN");
  if (kind == Kind::kRead) {
    // BEGIN is deferred: the snapshot starts at the first read, so take it now.
    db.exec("SELECT 1 FROM meta LIMIT 1");
  }
}

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_->exec("COMMIT");
  open_ = false;
}

}  // namespace sieve::search
