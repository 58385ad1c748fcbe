#include "tokenizer/pre_tokenizers/whitespace_split.hpp"

#include "tokenizer/core/unicode.hpp"
#include "tokenizer/pre_tokenizers/split_behavior.hpp"

namespace sieve::tokenizer {

std::unique_ptr<PreTokenizer> WhitespaceSplit::from_json(const JsonView& node) {
  node.expect_object();
  return std::make_unique<WhitespaceSplit>();
}

void WhitespaceSplit::pre_tokenize(std::vector<Split>& splits) const {
  split_each(splits, [](const NormalizedString& text, std::vector<Split>& out) {
    split_on_predicate(text, unicode::is_whitespace, SplitBehavior::kRemoved, false, out);
  });
}

}  // namespace sieve::tokenizer
