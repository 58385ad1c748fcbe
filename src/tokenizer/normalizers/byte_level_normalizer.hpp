#pragma once

#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Rewrites every byte as its GPT-2 byte-level character; the characters of
// one source character's bytes all keep its range.
class ByteLevelNormalizer final : public Normalizer {
 public:
  static std::unique_ptr<Normalizer> from_json(const JsonView& node);
  void normalize(NormalizedString& text) const override;
};

}  // namespace sieve::tokenizer
