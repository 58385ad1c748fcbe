#include "tokenizer/pre_tokenizers/digits.hpp"

#include "tokenizer/core/unicode.hpp"
#include "tokenizer/pre_tokenizers/split_behavior.hpp"

namespace sieve::tokenizer {
std::unique_ptr<PreTokenizer> Digits::from_json(const JsonView& node) {
  node.expect_object();
  return std::make_unique<Digits>(node.get_bool("individual_digits", false));
}

void Digits::pre_tokenize(std::vector<Split>& splits) const {
  const SplitBehavior behavior = individual_digits_ ? SplitBehavior::kIsolated : SplitBehavior::kContiguous;
  split_each(splits, [behavior](const NormalizedString& text, std::vector<Split>& out) {
    split_on_predicate(text, unicode::is_numeric, behavior, false, out);
  });
}

}  // namespace sieve::tokenizer
