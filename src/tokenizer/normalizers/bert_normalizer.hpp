#pragma once

#include <memory>
#include <optional>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"
#include "tokenizer/normalizers/unicode_normalizer.hpp"

namespace sieve::tokenizer {

// BERT's normalizer: removes control characters and maps whitespace to a
// space, surrounds CJK ideographs with spaces, strips accents (NFD, then
// drops non-spacing marks) and lowercases, in Hugging Face's order.
class BertNormalizer final : public Normalizer {
 public:
  struct Options {
    bool clean_text = true;
    bool handle_chinese_chars = true;
    std::optional<bool> strip_accents;  // unset: follows lowercase
    bool lowercase = true;
  };

  explicit BertNormalizer(Options options) : options_(options) {}
  static std::unique_ptr<Normalizer> from_json(const JsonView& node);

  void normalize(NormalizedString& text) const override;

 private:
  Options options_;
  UnicodeNormalizer nfd_{unicode_forms::Form::kNfd};
};

}  // namespace sieve::tokenizer
