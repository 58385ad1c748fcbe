#pragma once

#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Splits on whitespace, which is dropped.
class WhitespaceSplit final : public PreTokenizer {
 public:
  static std::unique_ptr<PreTokenizer> from_json(const JsonView& node);
  void pre_tokenize(std::vector<Split>& splits) const override;
};

}  // namespace sieve::tokenizer
