#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace sieve::search {

// Owners of SQLite handles: every failure becomes a sieve::Error naming the
// database and the statement, so callers never look at result codes.
class Statement;

class Database {
 public:
  enum class Mode { kReadWrite, kReadOnly };
  Database(const std::filesystem::path& file, Mode mode);
  Database(Database&&) noexcept = default;
  Database& operator=(Database&&) noexcept = default;
  ~Database() = default;

  void exec(std::string_view sql);
  Statement prepare(std::string_view sql);
  [[nodiscard]] std::int64_t last_insert_rowid() const;
  [[nodiscard]] int changes() const;
  [[nodiscard]] sqlite3* handle() const noexcept { return db_.get(); }
  [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }
  [[noreturn]] void fail(std::string_view what) const;

 private:
  struct Closer {
    void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
  };
  std::filesystem::path file_;
  std::unique_ptr<sqlite3, Closer> db_;
};

class Statement {
 public:
  Statement(Database& db, sqlite3_stmt* stmt) : db_(&db), stmt_(stmt) {}

  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind_blob(int index, std::span<const float> values);
  Statement& bind_null(int index);
  // true: a row is ready; false: done.
  bool step();
  // Runs a statement that returns no rows, then resets it for reuse.
  void run();
  void reset();

  [[nodiscard]] std::int64_t integer(int column) const;
  [[nodiscard]] double real(int column) const;
  [[nodiscard]] std::string text(int column) const;
  [[nodiscard]] std::string_view text_view(int column) const;
  [[nodiscard]] std::span<const float> floats(int column) const;
  [[nodiscard]] bool is_null(int column) const;
  // The number of columns of its result.
  [[nodiscard]] int columns() const;

 private:
  struct Finalizer {
    void operator()(sqlite3_stmt* stmt) const noexcept { sqlite3_finalize(stmt); }
  };
  Database* db_;
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
};

// BEGIN IMMEDIATE (writers) or BEGIN (readers' snapshot); rolls back unless committed.
class Transaction {
 public:
  enum class Kind { kRead, kWrite };
  Transaction(Database& db, Kind kind);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  Database* db_;
  bool open_ = true;
};

}  // namespace sieve::search
