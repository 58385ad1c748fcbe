#pragma once

#include <memory>
#include <string>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Prepends a string to non-empty text; the added characters take the range
// of the first character.
class Prepend final : public Normalizer {
 public:
  explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
  static std::unique_ptr<Normalizer> from_json(const JsonView& node);
  void normalize(NormalizedString& text) const override;

 private:
  std::string prefix_;
};

}  // namespace sieve::tokenizer
