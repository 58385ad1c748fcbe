#include "tokenizer/pre_tokenizers/punctuation.hpp"

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {

std::unique_ptr<PreTokenizer> Punctuation::from_json(const JsonView& node) {
  node.expect_object();
  const auto behavior = node.find("behavior");
  return std::make_unique<Punctuation>(behavior ? split_behavior_from_json(*behavior) : SplitBehavior::kIsolated);
}

void Punctuation::pre_tokenize(std::vector<Split>& splits) const {
  split_each(splits, [this](const NormalizedString& text, std::vector<Split>& out) {
    split_on_predicate(text, unicode::is_bert_punctuation, behavior_, false, out);
  });
}

}  // namespace sieve::tokenizer
