#pragma once

#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Splits where the Unicode script changes, as SentencePiece does: spaces
// belong to every script, and Hiragana and Katakana count as Han.
class UnicodeScripts final : public PreTokenizer {
 public:
  static std::unique_ptr<PreTokenizer> from_json(const JsonView& node);
  void pre_tokenize(std::vector<Split>& splits) const override;
};

}  // namespace sieve::tokenizer
