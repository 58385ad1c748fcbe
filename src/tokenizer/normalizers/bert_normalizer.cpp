#include "tokenizer/normalizers/bert_normalizer.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {
namespace {

struct AlignedChar {
  char32_t cp;
  Offsets original;
};

// Canonical ordering of combining marks, which NFD requires after
// decomposition: a stable sort of each run of non-zero combining classes.
void canonical_order(std::vector<AlignedChar>& chars, std::size_t from) {
  std::size_t i = from;
  while (i < chars.size()) {
    if (unicode::combining_class(chars[i].cp) == 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < chars.size() && unicode::combining_class(chars[j].cp) != 0) ++j;
    if (j - i > 1) {
      std::stable_sort(chars.begin() + static_cast<std::ptrdiff_t>(i), chars.begin() + static_cast<std::ptrdiff_t>(j),
                       [](const AlignedChar& a, const AlignedChar& b) {
                         return unicode::combining_class(a.cp) < unicode::combining_class(b.cp);
                       });
    }
    i = j;
  }
}

}  // namespace

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

  // Each step maps every character to zero or more characters that keep the
  // original range of the character they came from.
  std::vector<AlignedChar> chars;
  chars.reserve(s.size());
  text.for_each_char([&](char32_t cp, std::size_t, std::size_t, Offsets original) {
    if (options_.clean_text) {
      if (cp == 0 || cp == unicode::kReplacementChar || unicode::is_bert_control(cp)) return;
      if (unicode::is_whitespace(cp)) cp = ' ';
    }
    if (options_.handle_chinese_chars && unicode::is_chinese_char(cp)) {
      chars.push_back({' ', original});
      chars.push_back({cp, original});
      chars.push_back({' ', original});
      return;
    }
    chars.push_back({cp, original});
  });

  if (strip_accents) {
    std::vector<AlignedChar> decomposed;
    decomposed.reserve(chars.size());
    std::array<char32_t, 32> buffer{};
    for (const auto& c : chars) {
      const std::size_t n = unicode::decompose_canonical(c.cp, buffer.data(), buffer.size());
      for (std::size_t k = 0; k < std::min(n, buffer.size()); ++k) decomposed.push_back({buffer[k], c.original});
    }
    canonical_order(decomposed, 0);
    chars.clear();
    for (const auto& c : decomposed) {
      if (!unicode::is_nonspacing_mark(c.cp)) chars.push_back(c);
    }
  }

  NormalizedString::Builder builder(text);
  for (const auto& c : chars) {
    if (options_.lowercase) {
      char32_t lowered[3];
      const int n = unicode::to_lowercase(c.cp, lowered);
      for (int k = 0; k < n; ++k) builder.emit(lowered[k], c.original);
    } else {
      builder.emit(c.cp, c.original);
    }
  }
  text = std::move(builder).finish();
}

}  // namespace sieve::tokenizer
