#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"
#include "tokenizer/core/regex.hpp"

namespace sieve::tokenizer {

// Replaces every match of a string or regex pattern in each token with
// `content`, taken literally (Hugging Face 0.23 expands no "$1" groups here).
class ReplaceDecoder final : public Decoder {
 public:
  ReplaceDecoder(Regex pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  static std::unique_ptr<Decoder> from_json(const JsonView& node);

  void decode_chain(std::vector<std::string>& tokens) const override;

 private:
  Regex pattern_;
  std::string content_;
};

}  // namespace sieve::tokenizer
