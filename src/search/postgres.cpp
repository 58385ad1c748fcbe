#include "search/postgres.hpp"

#include <libpq-fe.h>

#include <charconv>
#include <cstdlib>

#include "sieve/error.hpp"

namespace sieve::search::pg {
namespace {

std::string trimmed(std::string message) {
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return message;
}

bool valid_index_name(std::string_view name) {
  if (name.empty() || name.size() > 48) return false;
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

}  // namespace

void ConnectionDeleter::operator()(PGconn* conn) const noexcept {
  PQfinish(conn);
}

void ResultDeleter::operator()(PGresult* result) const noexcept {
  PQclear(result);
}

int Result::rows() const {
  return PQntuples(result_.get());
}

bool Result::null(int row, int column) const {
  return PQgetisnull(result_.get(), row, column) != 0;
}

std::string_view Result::text(int row, int column) const {
  return {PQgetvalue(result_.get(), row, column), static_cast<std::size_t>(PQgetlength(result_.get(), row, column))};
}

std::int64_t Result::integer(int row, int column) const {
  const auto value = text(row, column);
  std::int64_t out = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (error != std::errc() || end != value.data() + value.size()) {
    throw Error(ErrorCode::kParse, "PostgreSQL returned '" + std::string(value) + "' where a number was expected");
  }
  return out;
}

double Result::real(int row, int column) const {
  const std::string value(text(row, column));
  char* end = nullptr;
  const double out = std::strtod(value.c_str(), &end);
  if (end != value.c_str() + value.size()) {
    throw Error(ErrorCode::kParse, "PostgreSQL returned '" + value + "' where a number was expected");
  }
  return out;
}

std::int64_t Result::affected() const {
  const char* count = PQcmdTuples(result_.get());
  return count && *count ? std::strtoll(count, nullptr, 10) : 0;
}

Connection::Connection(const std::string& conninfo, std::string shown) : shown_(std::move(shown)) {
  conn_.reset(PQconnectdb(conninfo.c_str()));
  if (!conn_) throw Error(ErrorCode::kRuntime, "cannot connect to PostgreSQL at " + shown_ + ": out of memory");
  if (PQstatus(conn_.get()) != CONNECTION_OK) {
    throw Error(ErrorCode::kRuntime,
                "cannot connect to PostgreSQL at " + shown_ + ": " + trimmed(PQerrorMessage(conn_.get())));
  }
  // Messages in English and times in UTC, whatever the server's defaults.
  exec("SET lc_messages TO 'C'");
  exec("SET TIME ZONE 'UTC'");
}

void Connection::script(std::string_view sql) {
  const std::string statements(sql);
  PGresult* raw = PQexec(conn_.get(), statements.c_str());
  checked(raw);
}

Result Connection::exec(std::string_view sql, const std::vector<Param>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  const std::string statement(sql);
  return checked(PQexecParams(conn_.get(), statement.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                              nullptr, nullptr, 0));
}

Result Connection::checked(PGresult* raw) {
  Result result(raw);
  const ExecStatusType status = raw ? PQresultStatus(raw) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
  const char* state = raw ? PQresultErrorField(raw, PG_DIAG_SQLSTATE) : nullptr;
  const std::string sqlstate = state ? state : "";
  std::string message = trimmed(raw ? PQresultErrorMessage(raw) : PQerrorMessage(conn_.get()));
  if (message.empty()) message = trimmed(PQerrorMessage(conn_.get()));
  if (PQstatus(conn_.get()) != CONNECTION_OK) {
    throw Error(ErrorCode::kRuntime, "lost the connection to PostgreSQL at " + shown_ + ": " + message);
  }
  // 55P03: a lock that could not be taken at once; 40001/40P01: a serialization failure or deadlock.
  const bool retry = sqlstate == "55P03" || sqlstate == "40001" || sqlstate == "40P01";
  throw Error(retry ? ErrorCode::kOverloaded : ErrorCode::kRuntime,
              "PostgreSQL at " + shown_ + ": " + message + (sqlstate.empty() ? "" : " (SQLSTATE " + sqlstate + ")"));
}

bool Connection::healthy() const {
  return PQstatus(conn_.get()) == CONNECTION_OK && PQtransactionStatus(conn_.get()) == PQTRANS_IDLE;
}

Transaction::Transaction(Connection& connection, std::string_view begin) : connection_(&connection) {
  connection_->exec(begin);
}

Transaction::~Transaction() {
  if (!open_) return;
  try {
    connection_->exec("ROLLBACK");
  } catch (...) {  // NOLINT(bugprone-empty-catch): the connection is gone; so is the transaction
  }
}

void Transaction::commit() {
  connection_->exec("COMMIT");
  open_ = false;
}

std::string redact(std::string_view location) {
  std::string out(location);
  const auto scheme = out.find("://");
  if (scheme != std::string::npos) {
    const auto authority_begin = scheme + 3;
    auto authority_end = out.find_first_of("/?", authority_begin);
    if (authority_end == std::string::npos) authority_end = out.size();
    const auto at = out.rfind('@', authority_end);
    if (at != std::string::npos && at >= authority_begin) {
      const auto colon = out.find(':', authority_begin);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  for (std::size_t from = 0;;) {
    const auto key = out.find("password=", from);
    if (key == std::string::npos) break;
    const auto value = key + 9;
    auto end = out.find_first_of("& ", value);
    if (end == std::string::npos) end = out.size();
    out.replace(value, end - value, "***");
    from = value + 3;
  }
  return out;
}

std::string quote_identifier(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

Location parse_location(std::string_view location) {
  Location out;
  out.shown = redact(location);
  const auto query = location.find('?');
  std::string conninfo(location.substr(0, query));
  out.index = "default";
  if (query != std::string_view::npos) {
    std::string rest;
    std::string_view params = location.substr(query + 1);
    while (!params.empty()) {
      const auto amp = params.find('&');
      const std::string_view param = params.substr(0, amp);
      if (param.starts_with("index=")) {
        out.index = std::string(param.substr(6));
      } else if (!param.empty()) {
        rest += (rest.empty() ? "" : "&") + std::string(param);
      }
      if (amp == std::string_view::npos) break;
      params.remove_prefix(amp + 1);
    }
    if (!rest.empty()) conninfo += "?" + rest;
  }
  if (!valid_index_name(out.index)) {
    throw Error(ErrorCode::kInvalidArgument,
                "the index name '" + out.index + "' in " + out.shown + " is not 1 to 48 characters of a-z, 0-9 and _");
  }
  out.conninfo = std::move(conninfo);
  out.schema = quote_identifier("sieve_" + out.index);
  return out;
}

}  // namespace sieve::search::pg
