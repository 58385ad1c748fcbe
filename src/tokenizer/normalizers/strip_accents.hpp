#pragma once

#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Removes every combining mark (Mn, Mc and Me, as Hugging Face's Unicode 9.0
// tables have them); it decomposes nothing, so it is paired with NFD or NFKD.
class StripAccents final : public Normalizer {
 public:
  static std::unique_ptr<Normalizer> from_json(const JsonView& node);
  void normalize(NormalizedString& text) const override;
};

}  // namespace sieve::tokenizer
