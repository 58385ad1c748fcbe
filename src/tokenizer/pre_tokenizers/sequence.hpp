#pragma once

#include <memory>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Runs pre-tokenizers one after the other, each on the pieces of the one before.
class PreTokenizerSequence final : public PreTokenizer {
 public:
  explicit PreTokenizerSequence(std::vector<std::unique_ptr<PreTokenizer>> children) : children_(std::move(children)) {}
  static std::unique_ptr<PreTokenizer> from_json(const JsonView& node);
  void pre_tokenize(std::vector<Split>& splits) const override;

 private:
  std::vector<std::unique_ptr<PreTokenizer>> children_;
};

}  // namespace sieve::tokenizer
