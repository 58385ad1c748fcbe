#include "search/postgres.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>

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

int Result::columns() const {
  return PQnfields(result_.get());
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

Connection::Connection(const Location& location) : shown_(location.shown), password_(location.password) {
  std::vector<const char*> keywords;
  std::vector<const char*> values;
  for (const auto& [keyword, value] : location.parameters) {
    keywords.push_back(keyword.c_str());
    values.push_back(value.c_str());
  }
  keywords.push_back(nullptr);
  values.push_back(nullptr);
  // expand_dbname 0: a database name is a name, never read as another URI or key=value string.
  conn_.reset(PQconnectdbParams(keywords.data(), values.data(), 0));
  if (!conn_) throw Error(ErrorCode::kRuntime, "cannot connect to PostgreSQL at " + shown_ + ": out of memory");
  if (PQstatus(conn_.get()) != CONNECTION_OK) {
    throw Error(ErrorCode::kRuntime,
                "cannot connect to PostgreSQL at " + shown_ + ": " + message(PQerrorMessage(conn_.get())));
  }
  // Messages in English and times in UTC, whatever the server's defaults.
  exec("SET lc_messages TO 'C'");
  exec("SET TIME ZONE 'UTC'");
}

std::string Connection::message(const char* text) const {
  std::string out = trimmed(text ? text : "");
  // libpq is never given the URI, so its messages have no reason to quote the password; should one ever do,
  // it is hidden (a password of a few characters could also be an ordinary word, and is left alone).
  if (password_.size() >= 4) {
    for (std::size_t at = out.find(password_); at != std::string::npos; at = out.find(password_, at + 3)) {
      out.replace(at, password_.size(), "***");
    }
  }
  return out;
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
  std::string text = message(raw ? PQresultErrorMessage(raw) : PQerrorMessage(conn_.get()));
  if (text.empty()) text = message(PQerrorMessage(conn_.get()));
  if (PQstatus(conn_.get()) != CONNECTION_OK) {
    throw Error(ErrorCode::kRuntime, "lost the connection to PostgreSQL at " + shown_ + ": " + text);
  }
  // 55P03: a lock that could not be taken at once; 40001/40P01: a serialization failure or deadlock.
  const bool retry = sqlstate == "55P03" || sqlstate == "40001" || sqlstate == "40P01";
  throw Error(retry ? ErrorCode::kOverloaded : ErrorCode::kRuntime,
              "PostgreSQL at " + shown_ + ": " + text + (sqlstate.empty() ? "" : " (SQLSTATE " + sqlstate + ")"));
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

std::string quote_identifier(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

namespace {

// The pieces of a postgresql:// URI, as written (percent-escapes still in them).
struct UriParts {
  std::string_view scheme;  // "postgresql://" or "postgres://"
  std::optional<std::string_view> user;
  std::optional<std::string_view> password;
  std::string_view hosts;                // host[:port][,host[:port]...]
  std::optional<std::string_view> path;  // the database name
  std::optional<std::string_view> query;
};

// Splits a URI; nullopt (with the reason) where it is not one this reads.
std::optional<UriParts> split_uri(std::string_view location, std::string* why) {
  UriParts parts;
  const auto scheme_end = location.find("://");
  if (scheme_end == std::string_view::npos) {
    *why = "not a postgresql:// URI";
    return std::nullopt;
  }
  parts.scheme = location.substr(0, scheme_end + 3);
  std::string_view rest = location.substr(scheme_end + 3);
  // The user information ends at the last '@' before the path: a password may hold '@', '?' or ':'.
  const auto slash = rest.find('/');
  const auto at = rest.substr(0, slash).rfind('@');
  if (at != std::string_view::npos) {
    const std::string_view userinfo = rest.substr(0, at);
    const auto colon = userinfo.find(':');
    parts.user = userinfo.substr(0, colon);
    if (colon != std::string_view::npos) parts.password = userinfo.substr(colon + 1);
    rest.remove_prefix(at + 1);
  }
  const auto host_end = rest.find_first_of("/?");
  parts.hosts = rest.substr(0, host_end);
  rest = host_end == std::string_view::npos ? std::string_view() : rest.substr(host_end);
  if (!rest.empty() && rest.front() == '/') {
    const auto question = rest.find('?');
    parts.path = rest.substr(1, question == std::string_view::npos ? std::string_view::npos : question - 1);
    rest = question == std::string_view::npos ? std::string_view() : rest.substr(question);
  }
  if (!rest.empty()) parts.query = rest.substr(1);
  // An '@' after the host means the user information did not end where it was taken to: a password with
  // an unescaped '/' in it, whose rest would otherwise be read as a host, a port or a database name.
  if ((parts.path && parts.path->find('@') != std::string_view::npos) ||
      parts.hosts.find('@') != std::string_view::npos) {
    *why = "an '@' after the host (a '/' in the user name or password must be written %2F)";
    return std::nullopt;
  }
  return parts;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX escapes decoded; nullopt for a malformed escape or one that decodes to a NUL byte.
std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    const int high = i + 1 < text.size() ? hex_value(text[i + 1]) : -1;
    const int low = i + 2 < text.size() ? hex_value(text[i + 2]) : -1;
    if (high < 0 || low < 0 || (high == 0 && low == 0)) return std::nullopt;
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

// The shown form: the password and any password= parameter's value hidden.
std::string shown_form(const UriParts& parts) {
  std::string out(parts.scheme);
  if (parts.user) {
    out += *parts.user;
    if (parts.password) out += ":***";
    out += '@';
  }
  out += parts.hosts;
  if (parts.path) out += "/" + std::string(*parts.path);
  if (parts.query) {
    out += '?';
    std::string_view params = *parts.query;
    bool first = true;
    while (true) {
      const auto amp = params.find('&');
      const std::string_view param = params.substr(0, amp);
      if (!first) out += '&';
      first = false;
      out += param.starts_with("password=") ? std::string("password=***") : std::string(param);
      if (amp == std::string_view::npos) break;
      params.remove_prefix(amp + 1);
    }
  }
  return out;
}

// A location that is no URI this reads may hold a password anywhere (one with a '/' or without its '@'
// reads as a host, a port, a database or a parameter): only its scheme is shown.
std::string redact_unreadable(std::string_view location) {
  const auto scheme = location.find("://");
  return std::string(location.substr(0, scheme == std::string_view::npos ? 0 : scheme + 3)) + "***";
}

[[noreturn]] void unreadable(std::string_view location, const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument,
              "the PostgreSQL location " + redact_unreadable(location) + " cannot be read: " + why);
}

}  // namespace

std::string redact(std::string_view location) {
  try {
    return parse_location(location).shown;
  } catch (const Error&) {
    return redact_unreadable(location);
  }
}

Location parse_location(std::string_view location) {
  std::string why;
  const auto parts = split_uri(location, &why);
  if (!parts) unreadable(location, why);
  Location out;
  out.shown = shown_form(*parts);
  out.index = "default";
  const auto decoded = [&](std::string_view text, const char* what) {
    auto value = percent_decode(text);
    // The text is not quoted: it may be (part of) the password.
    if (!value) unreadable(location, std::string("a malformed %-escape in the ") + what);
    return std::move(*value);
  };
  std::string hosts;
  std::string ports;
  bool any_host = false;
  bool any_port = false;
  std::string_view list = parts->hosts;
  for (bool first = true;; first = false) {
    const auto comma = list.find(',');
    std::string_view entry = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    std::string_view host = entry;
    std::string_view port;
    if (entry.starts_with('[')) {
      const auto close = entry.find(']');
      if (close == std::string_view::npos) unreadable(location, "an IPv6 address without its closing ']'");
      host = entry.substr(1, close - 1);
      const std::string_view after = entry.substr(close + 1);
      if (!after.empty() && after.front() != ':') unreadable(location, "text after an IPv6 address's ']'");
      if (!after.empty()) port = after.substr(1);
    } else if (const auto colon = entry.rfind(':'); colon != std::string_view::npos) {
      host = entry.substr(0, colon);
      port = entry.substr(colon + 1);
    }
    if (!std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      unreadable(location, "a port that is not a number");
    }
    any_host = any_host || !host.empty();
    any_port = any_port || !port.empty();
    if (!first) {
      hosts += ',';
      ports += ',';
    }
    hosts += decoded(host, "host");
    ports += std::string(port);
    if (comma == std::string_view::npos) break;
  }
  // No host: libpq's default (PGHOST, else the local socket).
  if (any_host) out.parameters.emplace_back("host", hosts);
  if (any_port) out.parameters.emplace_back("port", ports);
  if (parts->user && !parts->user->empty()) out.parameters.emplace_back("user", decoded(*parts->user, "user name"));
  if (parts->password) {
    out.password = decoded(*parts->password, "password");
    out.parameters.emplace_back("password", out.password);
  }
  if (parts->path && !parts->path->empty()) out.parameters.emplace_back("dbname", decoded(*parts->path, "database"));
  if (parts->query) {
    std::string_view params = *parts->query;
    while (!params.empty()) {
      const auto amp = params.find('&');
      const std::string_view param = params.substr(0, amp);
      params = amp == std::string_view::npos ? std::string_view() : params.substr(amp + 1);
      if (param.empty()) continue;
      const auto equals = param.find('=');
      if (equals == std::string_view::npos || equals == 0) {
        unreadable(location, "a parameter without a name and '=' (write name=value)");
      }
      std::string name = decoded(param.substr(0, equals), "parameter name");
      std::string value = decoded(param.substr(equals + 1), "parameter value");
      if (name == "index") {
        out.index = std::move(value);
        continue;
      }
      if (name == "password") out.password = value;
      if (name == "ssl" && value == "true") {
        name = "sslmode";
        value = "require";
      }
      out.parameters.emplace_back(std::move(name), std::move(value));
    }
  }
  if (!valid_index_name(out.index)) {
    throw Error(ErrorCode::kInvalidArgument,
                "the index name '" + out.index + "' in " + out.shown + " is not 1 to 48 characters of a-z, 0-9 and _");
  }
  out.schema = quote_identifier("sieve_" + out.index);
  return out;
}

}  // namespace sieve::search::pg
