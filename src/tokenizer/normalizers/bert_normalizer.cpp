#include "tokenizer/normalizers/bert_normalizer.hpp"

#include <algorithm>

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Normalizer> BertNormalizer::from_json(const JsonView& node) {
  Options o;
  o.clean_text = node.get_bool("clean_text", true);
  o.handle_chinese_chars = node.get_bool("handle_chinese_chars", true);
  o.strip_accents = node.get_optional_bool("strip_accents");
  o.lowercase = node.get_bool("lowercase", true);
  return std::make_unique<BertNormalizer>(o);
}

void BertNormalizer::normalize(NormalizedString& text) const {
  const bool strip_accents = options_.strip_accents.value_or(options_.lowercase);
  const std::string& s = text.get();

  // Pure ASCII needs none of the Unicode machinery: one pass over bytes.
  const bool ascii = std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (ascii) {
    NormalizedString::Builder builder(text);
    for (std::size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      const Offsets original = text.original_offsets(i, i + 1);
      if (options_.clean_text) {
        if (c == '\t' || c == '\n' || c == '\r') {
          c = ' ';
        } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          continue;
        }
      }
      if (options_.lowercase && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
      builder.emit_ascii(c, original);
    }
    text = std::move(builder).finish();
    return;
  }

  // Hugging Face's passes, each over the whole text, so that alignments
  // follow its rules: a character and the spaces put around an ideograph
  // keep the range of their source character; NFD's reordering of marks
  // keeps ranges in place rather than moving them with the marks (its
  // transform assigns them by position); removed characters lose theirs.
  NormalizedString::Builder cleaned(text);
  text.for_each_char([&](char32_t cp, std::size_t, std::size_t, Offsets original) {
    if (options_.clean_text) {
      if (cp == 0 || cp == unicode::kReplacementChar || unicode::is_bert_control(cp)) return;
      if (unicode::is_whitespace(cp)) cp = ' ';
    }
    if (options_.handle_chinese_chars && unicode::is_chinese_char(cp)) {
      cleaned.emit_ascii(' ', original);
      cleaned.emit(cp, original);
      cleaned.emit_ascii(' ', original);
      return;
    }
    cleaned.emit(cp, original);
  });
  text = std::move(cleaned).finish();

  if (strip_accents) nfd_.normalize(text);
  if (!strip_accents && !options_.lowercase) return;
  NormalizedString::Builder builder(text);
  text.for_each_char([&](char32_t cp, std::size_t, std::size_t, Offsets original) {
    if (strip_accents && unicode::is_nonspacing_mark(cp)) return;
    if (options_.lowercase) {
      char32_t lowered[3];
      const int n = unicode::to_lowercase(cp, lowered);
      for (int k = 0; k < n; ++k) builder.emit(lowered[k], original);
    } else {
      builder.emit(cp, original);
    }
  });
  text = std::move(builder).finish();
}

}  // namespace sieve::tokenizer
