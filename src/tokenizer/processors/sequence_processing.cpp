#include "tokenizer/processors/sequence_processing.hpp"

#include "tokenizer/core/component_registry.hpp"

namespace sieve::tokenizer {

std::unique_ptr<PostProcessor> SequenceProcessing::from_json(const JsonView& node) {
  const JsonView list = node.at("processors");
  list.expect_array();
  std::vector<std::unique_ptr<EncodingsProcessor>> processors;
  processors.reserve(list.array_size());
  for (std::size_t i = 0; i < list.array_size(); ++i) {
    const JsonView child = list.at(i);
    std::unique_ptr<PostProcessor> created = ComponentRegistry::builtin().processors.create(child, "post-processor");
    auto* chainable = dynamic_cast<EncodingsProcessor*>(created.get());
    if (chainable == nullptr) child.fail("this post-processor cannot be part of a Sequence", ErrorCode::kUnsupported);
    processors.emplace_back(chainable);
    static_cast<void>(created.release());  // now owned by `processors`
  }
  return std::make_unique<SequenceProcessing>(std::move(processors));
}

std::size_t SequenceProcessing::added_tokens(bool is_pair) const {
  std::size_t total = 0;
  for (const auto& processor : processors_) total += processor->added_tokens(is_pair);
  return total;
}

void SequenceProcessing::process_encodings(std::vector<Encoding>& encodings, bool add_special_tokens,
                                           const TokenLookup& tokens) const {
  for (const auto& processor : processors_) processor->process_encodings(encodings, add_special_tokens, tokens);
}

}  // namespace sieve::tokenizer
