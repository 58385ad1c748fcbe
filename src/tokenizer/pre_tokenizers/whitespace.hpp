#pragma once

#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Keeps runs of word characters and runs of other non-space characters
// (HF's regex \w+|[^\w\s]+, with Rust's Unicode \w); whitespace is dropped.
class Whitespace final : public PreTokenizer {
 public:
  static std::unique_ptr<PreTokenizer> from_json(const JsonView& node);
  void pre_tokenize(std::vector<Split>& splits) const override;
};

}  // namespace sieve::tokenizer
