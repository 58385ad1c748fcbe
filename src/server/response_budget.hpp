#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sieve::server {

// The most one answer may hold (ServerOptions::max_response_bytes): a route
// that builds a large answer refuses the request with 413, naming the
// limit, before it builds it when it can tell, else as soon as it is over.
class ResponseBudget {
 public:
  ResponseBudget(std::size_t max_bytes, std::string param) : max_bytes_(max_bytes), param_(std::move(param)) {}

  // Refuses when an answer of at least `bytes` is over the limit; `what`
  // says what the answer would hold ("400000 tokens").
  void expect(std::size_t bytes, const std::string& what) const;
  // Refuses once the `written` bytes of the answer are over the limit.
  void check(std::size_t written) const;

 private:
  std::size_t max_bytes_;
  std::string param_;
};

// A JSON string literal of `text`, with invalid UTF-8 replaced by U+FFFD
// (a decoded partial byte-level token, a cut through a character).
void append_text_json(std::string& out, std::string_view text);

}  // namespace sieve::server
