#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sieve::server {

// One HTTP request as the routes see it: the head is complete and checked
// (limits, framing, authentication) before any byte of the body is read.
struct Request {
  std::string method;    // as sent: GET, POST, ...
  std::string path;      // percent-decoded, without the query
  std::string raw_path;  // the same as sent (escapes kept), for routes whose segments may hold "/"; "" in tests
  std::vector<std::pair<std::string, std::string>> params;   // the query, decoded
  std::vector<std::pair<std::string, std::string>> headers;  // names as sent
  std::string body;
  std::vector<std::string> matches;  // a pattern route's captures ([0]: the whole path)
  std::string remote_address;
  // Whether the client has closed the connection (for work to be dropped);
  // never set for requests made in tests.
  std::function<bool()> client_gone;

  // The first header of that name (any case), or "".
  [[nodiscard]] std::string header(std::string_view name) const;
  [[nodiscard]] bool has_param(std::string_view name) const;
  // The first query parameter of that name, or "".
  [[nodiscard]] std::string param(std::string_view name) const;
};

// One HTTP response: status, headers and the whole body.
struct Response {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string content_type;
  // A file to send as the body instead of `body`: an open descriptor, read from where it stands in blocks
  // (never held in memory whole), `file_size` bytes of it.
  std::shared_ptr<const int> file;
  std::uint64_t file_size = 0;

  void set_header(std::string name, std::string value);
  void set_content(std::string content, std::string type) {
    body = std::move(content);
    content_type = std::move(type);
  }
  [[nodiscard]] std::optional<std::string_view> header(std::string_view name) const;
};

// ASCII case-insensitive equality, as header names compare.
bool equal_ignoring_case(std::string_view a, std::string_view b);

// `text` with %XX escapes decoded (and, in a query, '+' as a space);
// nullopt when an escape is malformed.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space);

// A request target ("/path?a=1&b=2") split into its decoded path and query
// parameters; nullopt when it is not an origin-form target or an escape is malformed.
std::optional<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> split_target(
    std::string_view target);

}  // namespace sieve::server
