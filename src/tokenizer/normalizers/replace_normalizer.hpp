#pragma once

#include <memory>
#include <string>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"
#include "tokenizer/core/regex.hpp"

namespace sieve::tokenizer {

// Replaces every match of a string or regex with fixed content ("$1" is not
// expanded, as in tokenizers 0.23). The inserted text takes the range of the
// last character matched, or of the character before an empty match.
class ReplaceNormalizer final : public Normalizer {
 public:
  ReplaceNormalizer(Regex pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  static std::unique_ptr<Normalizer> from_json(const JsonView& node);
  void normalize(NormalizedString& text) const override;

 private:
  Regex pattern_;
  std::string content_;
};

}  // namespace sieve::tokenizer
