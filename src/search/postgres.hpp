#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// libpq's handles, declared as libpq-fe.h declares them, so that only
// postgres*.cpp include libpq.
extern "C" {
typedef struct pg_conn PGconn;      // NOLINT(modernize-use-using)
typedef struct pg_result PGresult;  // NOLINT(modernize-use-using)
}

namespace sieve::search::pg {

// Owners of libpq handles: every failure becomes a sieve::Error that names
// the server by its redacted location, never with a password.

struct ConnectionDeleter {
  void operator()(PGconn* conn) const noexcept;
};
struct ResultDeleter {
  void operator()(PGresult* result) const noexcept;
};

class Result {
 public:
  explicit Result(PGresult* result) : result_(result) {}
  [[nodiscard]] int rows() const;
  [[nodiscard]] bool null(int row, int column) const;
  [[nodiscard]] std::string_view text(int row, int column) const;
  [[nodiscard]] std::int64_t integer(int row, int column) const;
  [[nodiscard]] double real(int row, int column) const;
  [[nodiscard]] std::int64_t affected() const;

 private:
  std::unique_ptr<PGresult, ResultDeleter> result_;
};

// A parameter in PostgreSQL's text format; nullopt is SQL NULL.
using Param = std::optional<std::string>;

class Connection {
 public:
  // `conninfo`: a URI or key=value string as libpq takes it; `shown`: the
  // same with any password hidden, for messages.
  Connection(const std::string& conninfo, std::string shown);
  Result exec(std::string_view sql, const std::vector<Param>& params = {});
  Result exec(std::string_view sql, std::initializer_list<Param> params) {
    return exec(sql, std::vector<Param>(params));
  }
  // Several statements, without parameters (DDL).
  void script(std::string_view sql);
  // Usable for another transaction: connected and idle.
  [[nodiscard]] bool healthy() const;
  [[nodiscard]] const std::string& shown() const noexcept { return shown_; }

 private:
  // Throws the result's error, naming the server; returns it when it succeeded.
  Result checked(PGresult* raw);

  std::unique_ptr<PGconn, ConnectionDeleter> conn_;
  std::string shown_;
};

// BEGIN ... COMMIT on one connection; rolled back unless committed.
class Transaction {
 public:
  Transaction(Connection& connection, std::string_view begin = "BEGIN");
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  Connection* connection_;
  bool open_ = true;
};

// Where a location is a PostgreSQL connection URI, with Sieve's own `index`
// parameter (the index's name: its tables live in schema sieve_NAME) taken
// out of what libpq is given.
struct Location {
  std::string conninfo;  // for libpq
  std::string shown;     // with the password hidden
  std::string index;     // the index's name
  std::string schema;    // sieve_NAME, quoted where SQL needs it
};
Location parse_location(std::string_view location);

// The location with its password (user:PASSWORD@ or password=...) hidden.
std::string redact(std::string_view location);

// An SQL identifier or literal, quoted.
std::string quote_identifier(std::string_view name);

}  // namespace sieve::search::pg
