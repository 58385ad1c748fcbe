#include "tokenizer/normalizers/replace_normalizer.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "tokenizer/core/pattern_json.hpp"
#include "tokenizer/core/unicode.hpp"
#include "tokenizer/normalizers/transform.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Normalizer> ReplaceNormalizer::from_json(const JsonView& node) {
  node.expect_object();
  Regex regex = pattern_from_json(node.at("pattern"));
  return std::make_unique<ReplaceNormalizer>(std::move(regex), node.at("content").as_string());
}

void ReplaceNormalizer::normalize(NormalizedString& text) const {
  const std::string& s = text.get();
  if (s.empty()) return;  // Hugging Face looks for no match in an empty string
  thread_local std::vector<std::pair<std::size_t, std::size_t>> matches;
  matches.clear();
  pattern_.find_all(s, matches);
  if (matches.empty()) return;

  // Hugging Face rewrites one match at a time; done in one pass, each match
  // still sees the characters before it unchanged, so the ranges agree.
  Transformer transformer(text);
  for (const auto& [begin, end] : matches) {
    transformer.keep_until(begin);
    const auto matched_chars = static_cast<std::size_t>(
        std::count_if(s.begin() + static_cast<std::ptrdiff_t>(begin), s.begin() + static_cast<std::ptrdiff_t>(end),
                      [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }));
    transformer.begin_range(end, matched_chars);
    std::size_t pos = 0;
    while (pos < content_.size()) {
      char32_t cp = 0;
      const std::size_t len = unicode::decode(content_, pos, cp);
      transformer.push(cp, 1);
      pos += len == 0 ? 1 : len;
    }
    transformer.end_range();
  }
  text = std::move(transformer).finish();
}

}  // namespace sieve::tokenizer
