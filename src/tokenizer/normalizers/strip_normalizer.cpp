#include "tokenizer/normalizers/strip_normalizer.hpp"

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Normalizer> StripNormalizer::from_json(const JsonView& node) {
  node.expect_object();
  return std::make_unique<StripNormalizer>(node.at("strip_left").as_bool(), node.at("strip_right").as_bool());
}

void StripNormalizer::normalize(NormalizedString& text) const {
  // The first non-whitespace byte and the end of the last non-whitespace
  // character; all-whitespace text has first past last.
  std::size_t first = text.size();
  std::size_t last_end = 0;
  text.for_each_char([&](char32_t cp, std::size_t begin, std::size_t end, Offsets) {
    if (unicode::is_whitespace(cp)) return;
    if (first > begin) first = begin;
    last_end = end;
  });
  const std::size_t keep_begin = left_ ? first : 0;
  const std::size_t keep_end = right_ ? last_end : text.size();
  if (keep_begin == 0 && keep_end == text.size()) return;

  // The kept characters keep their ranges; the piece keeps its place in the original.
  NormalizedString::Builder builder(text);
  text.for_each_char([&](char32_t cp, std::size_t begin, std::size_t, Offsets original) {
    if (begin >= keep_begin && begin < keep_end) builder.emit(cp, original);
  });
  text = std::move(builder).finish();
}

}  // namespace sieve::tokenizer
