#include "tokenizer/normalizers/strip_accents.hpp"

#include <algorithm>

#include "tokenizer/normalizers/unicode_forms.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Normalizer> StripAccents::from_json(const JsonView&) {
  return std::make_unique<StripAccents>();
}

void StripAccents::normalize(NormalizedString& text) const {
  const std::string& s = text.get();
  // Marks start at U+0300, whose UTF-8 lead byte is 0xCC.
  if (std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0xCC; })) return;

  NormalizedString::Builder builder(text);
  text.for_each_char([&](char32_t cp, std::size_t, std::size_t, Offsets original) {
    if (!unicode_forms::is_combining_mark(cp)) builder.emit(cp, original);
  });
  text = std::move(builder).finish();
}

}  // namespace sieve::tokenizer
