#pragma once

#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Full lowercase mapping of every character (Rust's char::to_lowercase); the
// characters of a multi-character mapping all keep the source's range.
class Lowercase final : public Normalizer {
 public:
  static std::unique_ptr<Normalizer> from_json(const JsonView& node);
  void normalize(NormalizedString& text) const override;
};

}  // namespace sieve::tokenizer
