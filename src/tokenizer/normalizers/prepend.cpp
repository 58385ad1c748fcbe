#include "tokenizer/normalizers/prepend.hpp"

#include "tokenizer/core/unicode.hpp"
#include "tokenizer/normalizers/transform.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Normalizer> Prepend::from_json(const JsonView& node) {
  node.expect_object();
  return std::make_unique<Prepend>(node.at("prepend").as_string());
}

void Prepend::normalize(NormalizedString& text) const {
  const std::string& s = text.get();
  if (s.empty()) return;
  char32_t first = 0;
  const std::size_t first_len = unicode::decode(s, 0, first);

  // As Hugging Face: the first character is rewritten as the prefix followed
  // by itself, the prefix's first character replacing it. (An empty prefix
  // thus leaves the first character with an empty range.)
  Transformer transformer(text);
  transformer.begin_range(first_len);
  std::size_t pos = 0;
  bool first_of_prefix = true;
  while (pos < prefix_.size()) {
    char32_t cp = 0;
    const std::size_t len = unicode::decode(prefix_, pos, cp);
    transformer.push(cp, first_of_prefix ? 0 : 1);
    first_of_prefix = false;
    pos += len == 0 ? 1 : len;
  }
  transformer.push(first, 1);
  transformer.end_range();
  text = std::move(transformer).finish();
}

}  // namespace sieve::tokenizer
