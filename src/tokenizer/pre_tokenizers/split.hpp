#pragma once

#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"
#include "tokenizer/core/regex.hpp"
#include "tokenizer/pre_tokenizers/split_behavior.hpp"

namespace sieve::tokenizer {

// HF's "Split": splits on a string or a regular expression, with a chosen
// behaviour for what it matched; `invert` splits on what it did not match.
class SplitPreTokenizer final : public PreTokenizer {
 public:
  SplitPreTokenizer(Regex pattern, SplitBehavior behavior, bool invert)
      : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}
  static std::unique_ptr<PreTokenizer> from_json(const JsonView& node);
  void pre_tokenize(std::vector<Split>& splits) const override;

 private:
  Regex pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

}  // namespace sieve::tokenizer
