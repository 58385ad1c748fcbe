#include "tokenizer/normalizers/nmt.hpp"

namespace sieve::tokenizer {
namespace {

bool is_removed(char32_t cp) {
  return (cp >= 0x01 && cp <= 0x08) || cp == 0x0B || (cp >= 0x0E && cp <= 0x1F) || cp == 0x7F || cp == 0x8F ||
         cp == 0x9F;
}

bool becomes_space(char32_t cp) {
  return cp == 0x09 || cp == 0x0A || cp == 0x0C || cp == 0x0D || cp == 0x1680 || (cp >= 0x200B && cp <= 0x200F) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x2581 || cp == 0xFEFF || cp == 0xFFFD;
}

}  // namespace

std::unique_ptr<Normalizer> Nmt::from_json(const JsonView&) {
  return std::make_unique<Nmt>();
}

void Nmt::normalize(NormalizedString& text) const {
  NormalizedString::Builder builder(text);
  text.for_each_char([&](char32_t cp, std::size_t, std::size_t, Offsets original) {
    if (is_removed(cp)) return;
    builder.emit(becomes_space(cp) ? U' ' : cp, original);
  });
  text = std::move(builder).finish();
}

}  // namespace sieve::tokenizer
