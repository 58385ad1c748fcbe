#include "tokenizer/normalizers/lowercase.hpp"

#include <algorithm>

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Normalizer> Lowercase::from_json(const JsonView&) {
  return std::make_unique<Lowercase>();
}

void Lowercase::normalize(NormalizedString& text) const {
  const std::string& s = text.get();
  bool ascii = true;
  bool has_upper = false;
  for (const char c : s) {
    ascii = ascii && static_cast<unsigned char>(c) < 0x80;
    has_upper = has_upper || (c >= 'A' && c <= 'Z');
  }
  if (ascii && !has_upper) return;

  NormalizedString::Builder builder(text);
  if (ascii) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      builder.emit_ascii(c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c,
                         text.original_offsets(i, i + 1));
    }
  } else {
    text.for_each_char([&](char32_t cp, std::size_t, std::size_t, Offsets original) {
      char32_t lowered[3];
      const int n = unicode::to_lowercase(cp, lowered);
      for (int k = 0; k < n; ++k) builder.emit(lowered[k], original);
    });
  }
  text = std::move(builder).finish();
}

}  // namespace sieve::tokenizer
