#include "server/http_error.hpp"

namespace sieve::server {
namespace {

// OpenAI's error "type" for a status.
const char* openai_type(int status) {
  if (status == 401) return "authentication_error";
  if (status == 404) return "invalid_request_error";
  if (status == 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

// Text Embeddings Inference's ErrorType for a status.
const char* tei_type(int status) {
  switch (status) {
    case 400: return "Empty";
    case 401: return "Unauthorized";
    case 404: return "NotFound";
    case 413:
    case 422: return "Validation";
    case 429: return "Overloaded";
    case 503: return "Unhealthy";
    default: return status >= 500 ? "Backend" : "Validation";
  }
}

}  // namespace

HttpError to_http_error(const Error& error, const std::string& param, std::string_view how_to_truncate) {
  std::string message = error.message();
  constexpr std::string_view kGenericHint = "(ask for truncation to cut it)";
  if (const std::size_t at = message.find(kGenericHint); at != std::string::npos && !how_to_truncate.empty()) {
    message.replace(at, kGenericHint.size(), "(" + std::string(how_to_truncate) + ")");
  }
  if (error.input_index()) message = "input " + std::to_string(*error.input_index()) + ": " + message;
  switch (error.code()) {
    case ErrorCode::kInvalidInput: return {422, message, param};
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kParse:
    case ErrorCode::kUnsupported: return {400, message, param};
    case ErrorCode::kNotFound: return {404, message, param};
    case ErrorCode::kOverloaded: return {429, message, {}, "overloaded"};
    case ErrorCode::kTimeout: return {503, message, {}, "timeout"};
    // nginx's "client closed request": nobody reads it, the metrics count it.
    case ErrorCode::kCancelled: return {499, message, {}, "cancelled"};
    case ErrorCode::kRuntime: break;
  }
  return {500, message};
}

nlohmann::json error_body(ApiStyle style, const HttpError& error) {
  using nlohmann::json;
  switch (style) {
    case ApiStyle::kOpenAI:
      return {{"error",
               {{"message", error.what()},
                {"type", openai_type(error.status())},
                {"param", error.param().empty() ? json(nullptr) : json(error.param())},
                {"code", error.code().empty() ? json(nullptr) : json(error.code())}}}};
    case ApiStyle::kTei: return {{"error", error.what()}, {"error_type", tei_type(error.status())}};
    case ApiStyle::kCohere: return {{"message", error.what()}};
    case ApiStyle::kJsonRpc:
      // JSON-RPC's "invalid request" for what the client got wrong, "internal error" for the rest.
      return {{"jsonrpc", "2.0"},
              {"id", nullptr},
              {"error", {{"code", error.status() < 500 ? -32600 : -32603}, {"message", error.what()}}}};
    case ApiStyle::kPlain:
    case ApiStyle::kOllama: break;
  }
  return {{"error", error.what()}};
}

std::string dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace sieve::server
