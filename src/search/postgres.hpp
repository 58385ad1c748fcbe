#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
  [[nodiscard]] int columns() const;
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

struct Location;

class Connection {
 public:
  // Connects with the location's parameters, given to libpq one by one (it
  // never parses the URI, so none of its messages can quote the password);
  // messages name the server by the location's redacted form.
  explicit Connection(const Location& location);
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

  // libpq's message, with the password scrubbed should it ever quote it.
  [[nodiscard]] std::string message(const char* text) const;

  std::unique_ptr<PGconn, ConnectionDeleter> conn_;
  std::string shown_;
  std::string password_;
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

// Where a location is a PostgreSQL connection URI,
// postgresql://[user[:password]@][host][:port][,host[:port]...][/dbname][?name=value&...],
// read by Sieve itself (percent-escapes decoded) rather than by libpq, so
// that a password holding '?', '@' or ':' is read whole and never shown.
// The user information ends at the last '@' before the first '/'; a
// password holding '/' must write it %2F. Sieve's own `index` parameter
// (the index's name: its tables live in schema sieve_NAME) is taken out of
// what libpq is given; `ssl=true` means sslmode=require, as libpq reads it.
struct Location {
  // libpq's connection keywords and their values, in order (a later one wins).
  std::vector<std::pair<std::string, std::string>> parameters;
  std::string password;  // also among the parameters; kept to scrub it from any message
  std::string shown;     // the location with the password hidden
  std::string index;     // the index's name
  std::string schema;    // sieve_NAME, quoted where SQL needs it
};
// kInvalidArgument, naming the location by its redacted form, when it is
// not such a URI.
Location parse_location(std::string_view location);

// The location with its password (user:PASSWORD@ or password=...) hidden;
// where it cannot be read as a URI, everything between :// and its last '@'.
std::string redact(std::string_view location);

// An SQL identifier or literal, quoted.
std::string quote_identifier(std::string_view name);

// The chunk's words as BM25 over FTS5 sees them (search/text_match.hpp),
// written as a tsvector literal, so that both stores match and count the
// same words; `count`: how many words the chunk has. Whatever the text, the
// literal is one PostgreSQL accepts: no empty lexeme, quotes and
// backslashes escaped, within tsvector's limits (lexemes under 2 KiB and
// together under 1 MiB, positions 1 to 16,383, 256 of them per lexeme).
std::string tsvector_text(std::string_view text, std::size_t* count);

}  // namespace sieve::search::pg
