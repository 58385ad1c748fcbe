#include "tokenizer/pre_tokenizers/fixed_length.hpp"

#include <algorithm>

#include "tokenizer/core/unicode.hpp"
#include "tokenizer/pre_tokenizers/split_behavior.hpp"

namespace sieve::tokenizer {

std::unique_ptr<PreTokenizer> FixedLength::from_json(const JsonView& node) {
  node.expect_object();
  const std::uint64_t length = node.get_uint("length", 5);
  // Hugging Face panics on 0 ("chunk size must be non-zero") when encoding.
  if (length == 0) node.at("length").fail("length must be at least 1");
  return std::make_unique<FixedLength>(static_cast<std::size_t>(length));
}

void FixedLength::pre_tokenize(std::vector<Split>& splits) const {
  split_each(splits, [this](const NormalizedString& text, std::vector<Split>& out) {
    std::vector<ByteRange>& pieces = split_scratch().pieces;
    pieces.clear();
    const std::string& s = text.get();
    std::size_t start = 0;
    std::size_t chars = 0;
    for (std::size_t pos = 0; pos < s.size();) {
      if (chars == length_) {
        pieces.emplace_back(start, pos);
        start = pos;
        chars = 0;
      }
      pos = std::min(s.size(), pos + unicode::sequence_length(static_cast<unsigned char>(s[pos])));
      ++chars;
    }
    if (start < s.size()) pieces.emplace_back(start, s.size());
    append_slices(text, pieces, out);
  });
}

}  // namespace sieve::tokenizer
