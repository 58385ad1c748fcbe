#include "server/response_budget.hpp"

#include <nlohmann/json.hpp>

#include "server/http_error.hpp"
#include "sieve/json_text.hpp"

namespace sieve::server {
namespace {

std::string limit_text(std::size_t max_bytes) {
  return "the " + std::to_string(max_bytes) + " bytes one answer may hold (--max-response-bytes)";
}

// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
bool valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t n = 0;
    unsigned lo = 0x80;
    unsigned hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (i + n >= text.size()) return false;
    for (std::size_t k = 1; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return false;
    }
    i += n + 1;
  }
  return true;
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
  if (valid_utf8(text)) {
    append_json_string(out, text);
  } else {
    out += dump(nlohmann::json(std::string(text)));
  }
}

}  // namespace sieve::server
