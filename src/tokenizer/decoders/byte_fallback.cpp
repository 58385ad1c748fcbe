#include "tokenizer/decoders/byte_fallback.hpp"

#include <optional>

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {
namespace {

std::optional<unsigned> hex_digit(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<unsigned>(c - 'A' + 10);
  return std::nullopt;
}

// "<0xXX>", with XX read as Rust's u8::from_str_radix(XX, 16) reads it: that
// also accepts a sign, so "<0x+a>" is the byte 0x0A.
std::optional<char> byte_token(const std::string& token) {
  if (token.size() != 6 || !token.starts_with("<0x") || token.back() != '>') return std::nullopt;
  const char high = token[3];
  const auto low = hex_digit(token[4]);
  if (!low) return std::nullopt;
  if (high == '+') return static_cast<char>(*low);
  const auto high_value = hex_digit(high);
  if (!high_value) return std::nullopt;
  return static_cast<char>(*high_value * 16 + *low);
}

// One byte per byte token, so a run that is not text gives one U+FFFD per byte.
void flush(std::string& bytes, std::vector<std::string>& out) {
  if (bytes.empty()) return;
  if (unicode::find_invalid_utf8(bytes) == std::string::npos) {
    out.push_back(std::move(bytes));
  } else {
    for (std::size_t i = 0; i < bytes.size(); ++i) out.emplace_back("\xEF\xBF\xBD");
  }
  bytes.clear();
}

}  // namespace

std::unique_ptr<Decoder> ByteFallback::from_json(const JsonView& /*node*/) {
  return std::make_unique<ByteFallback>();
}

void ByteFallback::decode_chain(std::vector<std::string>& tokens) const {
  std::vector<std::string> out;
  out.reserve(tokens.size());
  std::string bytes;
  for (std::string& token : tokens) {
    if (const auto byte = byte_token(token)) {
      bytes.push_back(*byte);
      continue;
    }
    flush(bytes, out);
    out.push_back(std::move(token));
  }
  flush(bytes, out);
  tokens = std::move(out);
}

}  // namespace sieve::tokenizer
