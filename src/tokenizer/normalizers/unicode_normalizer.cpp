#include "tokenizer/normalizers/unicode_normalizer.hpp"

#include <algorithm>
#include <vector>

#include "tokenizer/core/unicode.hpp"
#include "tokenizer/normalizers/transform.hpp"

namespace sieve::tokenizer {
namespace {

// Whether the changes rewrite nothing: every character replaces itself.
bool is_identity(const std::string& text, const std::vector<CharChange>& changes) {
  std::size_t pos = 0;
  for (const CharChange& c : changes) {
    char32_t cp = 0;
    const std::size_t len = unicode::decode(text, pos, cp);
    if (c.change != 0 || len == 0 || cp != c.cp) return false;
    pos += len;
  }
  return pos == text.size();
}

}  // namespace

std::unique_ptr<Normalizer> UnicodeNormalizer::nfd_from_json(const JsonView&) {
  return std::make_unique<UnicodeNormalizer>(unicode_forms::Form::kNfd);
}
std::unique_ptr<Normalizer> UnicodeNormalizer::nfkd_from_json(const JsonView&) {
  return std::make_unique<UnicodeNormalizer>(unicode_forms::Form::kNfkd);
}
std::unique_ptr<Normalizer> UnicodeNormalizer::nfc_from_json(const JsonView&) {
  return std::make_unique<UnicodeNormalizer>(unicode_forms::Form::kNfc);
}
std::unique_ptr<Normalizer> UnicodeNormalizer::nfkc_from_json(const JsonView&) {
  return std::make_unique<UnicodeNormalizer>(unicode_forms::Form::kNfkc);
}

void UnicodeNormalizer::normalize(NormalizedString& text) const {
  const std::string& s = text.get();
  if (unicode_forms::is_normalized(s, form_)) return;

  thread_local std::vector<CharChange> changes;
  changes.clear();
  unicode_forms::normalize(s, form_, changes);
  if (is_identity(s, changes)) return;

  Transformer transformer(text);
  transformer.begin_range(s.size());
  for (const CharChange& c : changes) transformer.push(c.cp, c.change);
  transformer.end_range();
  text = std::move(transformer).finish();
}

}  // namespace sieve::tokenizer
