#include "tokenizer/normalizers/normalizer_sequence.hpp"

#include "tokenizer/core/component_registry.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Normalizer> NormalizerSequence::from_json(const JsonView& node) {
  node.expect_object();
  const JsonView list = node.at("normalizers");
  list.expect_array();
  std::vector<std::unique_ptr<Normalizer>> children;
  children.reserve(list.array_size());
  for (std::size_t i = 0; i < list.array_size(); ++i) {
    children.push_back(ComponentRegistry::builtin().normalizers.create(list.at(i), "normalizer"));
  }
  return std::make_unique<NormalizerSequence>(std::move(children));
}

void NormalizerSequence::normalize(NormalizedString& text) const {
  for (const auto& child : children_) child->normalize(text);
}

}  // namespace sieve::tokenizer
