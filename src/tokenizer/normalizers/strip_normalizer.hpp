#pragma once

#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Removes leading and/or trailing whitespace (Rust's char::is_whitespace).
class StripNormalizer final : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  static std::unique_ptr<Normalizer> from_json(const JsonView& node);
  void normalize(NormalizedString& text) const override;

 private:
  bool left_;
  bool right_;
};

}  // namespace sieve::tokenizer
