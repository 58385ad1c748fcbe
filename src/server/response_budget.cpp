#include "server/response_budget.hpp"

#include <nlohmann/json.hpp>

#include "server/http_error.hpp"
#include "sieve/json_text.hpp"
#include "tokenizer/core/unicode.hpp"

namespace sieve::server {
namespace {

std::string limit_text(std::size_t max_bytes) {
  return "the " + std::to_string(max_bytes) + " bytes one answer may hold (--max-response-bytes)";
}

}  // namespace

void ResponseBudget::expect(std::size_t bytes, const std::string& what) const {
  if (bytes > max_bytes_) {
    throw HttpError(413, "the answer would hold " + what + ", more than " + limit_text(max_bytes_), param_);
  }
}

void ResponseBudget::check(std::size_t written) const {
  if (written > max_bytes_) throw HttpError(413, "the answer would be larger than " + limit_text(max_bytes_), param_);
}

void append_text_json(std::string& out, std::string_view text) {
  if (tokenizer::unicode::find_invalid_utf8(text) == std::string_view::npos) {
    append_json_string(out, text);
  } else {
    out += dump(nlohmann::json(std::string(text)));
  }
}

}  // namespace sieve::server
