#pragma once

#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// SentencePiece's NMT cleanup: drops ASCII control characters and maps a set
// of whitespace and invisible characters to a space.
class Nmt final : public Normalizer {
 public:
  static std::unique_ptr<Normalizer> from_json(const JsonView& node);
  void normalize(NormalizedString& text) const override;
};

}  // namespace sieve::tokenizer
