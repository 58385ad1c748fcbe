#include "tokenizer/pre_tokenizers/sequence.hpp"

#include "tokenizer/core/component_registry.hpp"

namespace sieve::tokenizer {

std::unique_ptr<PreTokenizer> PreTokenizerSequence::from_json(const JsonView& node) {
  node.expect_object();
  const JsonView list = node.at("pretokenizers");
  list.expect_array();
  std::vector<std::unique_ptr<PreTokenizer>> children;
  children.reserve(list.array_size());
  for (std::size_t i = 0; i < list.array_size(); ++i) {
    children.push_back(ComponentRegistry::builtin().pre_tokenizers.create(list.at(i), "pre-tokenizer"));
  }
  return std::make_unique<PreTokenizerSequence>(std::move(children));
}

void PreTokenizerSequence::pre_tokenize(std::vector<Split>& splits) const {
  for (const auto& child : children_) child->pre_tokenize(splits);
}

}  // namespace sieve::tokenizer
