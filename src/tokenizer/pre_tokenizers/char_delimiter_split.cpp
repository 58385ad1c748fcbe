#include "tokenizer/pre_tokenizers/char_delimiter_split.hpp"

#include "tokenizer/pre_tokenizers/split_behavior.hpp"

namespace sieve::tokenizer {

std::unique_ptr<PreTokenizer> CharDelimiterSplit::from_json(const JsonView& node) {
  node.expect_object();
  const JsonView delimiter = node.at("delimiter");
  return std::make_unique<CharDelimiterSplit>(single_char_from_json(delimiter));
}

void CharDelimiterSplit::pre_tokenize(std::vector<Split>& splits) const {
  split_each(splits, [this](const NormalizedString& text, std::vector<Split>& out) {
    split_on_predicate(
        text, [this](char32_t cp) { return cp == delimiter_; }, SplitBehavior::kRemoved, false, out);
  });
}

}  // namespace sieve::tokenizer
