#pragma once

#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Splits numbers (Unicode N* characters) from the rest: each digit on its
// own with individual_digits, else each run of digits.
class Digits final : public PreTokenizer {
 public:
  explicit Digits(bool individual_digits) : individual_digits_(individual_digits) {}
  static std::unique_ptr<PreTokenizer> from_json(const JsonView& node);
  void pre_tokenize(std::vector<Split>& splits) const override;

 private:
  bool individual_digits_;
};

}  // namespace sieve::tokenizer
