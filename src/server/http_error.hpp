#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sieve/error.hpp"

namespace sieve::server {

// Each route answers errors in the shape of the API it imitates, so that
// that API's official clients read them.
enum class ApiStyle {
  kOpenAI,   // {"error": {"message", "type", "param", "code"}}
  kTei,      // {"error": "...", "error_type": "Validation" | ...}
  kCohere,   // {"message": "..."}
  kPlain,    // {"error": "..."}: health, readiness, metrics
  kOllama,   // {"error": "..."}: Ollama's API (/api/...)
  kJsonRpc,  // {"jsonrpc": "2.0", "id": null, "error": {"code", "message"}}: the MCP endpoint
};

// An error a route raises on purpose, with its HTTP status.
class HttpError : public std::runtime_error {
 public:
  HttpError(int status, const std::string& message, std::string param = {}, std::string code = {})
      : std::runtime_error(message), status_(status), param_(std::move(param)), code_(std::move(code)) {}
  [[nodiscard]] int status() const noexcept { return status_; }
  [[nodiscard]] const std::string& param() const noexcept { return param_; }  // the request field at fault
  [[nodiscard]] const std::string& code() const noexcept { return code_; }    // OpenAI's machine-readable code

 private:
  int status_;
  std::string param_;
  std::string code_;
};

// A library error as the HTTP error it stands for: bad input 422 (naming
// the input's index), bad option 400, overload 429, timeout 503, runtime 500.
// `how_to_truncate`, when given, replaces the generic hint of an over-long input ("ask for truncation") with what
// fixes it in the route's API (its field, or the server's --auto-truncate).
HttpError to_http_error(const Error& error, const std::string& param, std::string_view how_to_truncate = {});

// The body of an error response in `style`.
nlohmann::json error_body(ApiStyle style, const HttpError& error);

// JSON text for a response; invalid UTF-8 (e.g. a decoded partial
// byte-level token) becomes U+FFFD instead of failing.
std::string dump(const nlohmann::json& value);

}  // namespace sieve::server
