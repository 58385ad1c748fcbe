#pragma once

#include <memory>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"
#include "tokenizer/normalizers/unicode_forms.hpp"

namespace sieve::tokenizer {

// NFD, NFKD, NFC and NFKC, with Hugging Face's alignments (unicode_forms.hpp).
class UnicodeNormalizer final : public Normalizer {
 public:
  explicit UnicodeNormalizer(unicode_forms::Form form) : form_(form) {}
  static std::unique_ptr<Normalizer> nfd_from_json(const JsonView& node);
  static std::unique_ptr<Normalizer> nfkd_from_json(const JsonView& node);
  static std::unique_ptr<Normalizer> nfc_from_json(const JsonView& node);
  static std::unique_ptr<Normalizer> nfkc_from_json(const JsonView& node);

  void normalize(NormalizedString& text) const override;

 private:
  unicode_forms::Form form_;
};

}  // namespace sieve::tokenizer
