#pragma once

#include <memory>
#include <string>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// SentencePiece's pre-tokenizer: spaces become the replacement character
// (U+2581 '▁'), which is also put in front of a split (always, never, or
// only for the split at the start of the sequence), and each piece starts
// at a replacement character.
class Metaspace final : public PreTokenizer {
 public:
  enum class PrependScheme { kAlways, kNever, kFirst };

  Metaspace(char32_t replacement, PrependScheme prepend_scheme, bool split);
  static std::unique_ptr<PreTokenizer> from_json(const JsonView& node);
  void pre_tokenize(std::vector<Split>& splits) const override;

 private:
  void split_text(NormalizedString& text, std::vector<Split>& out) const;

  char32_t replacement_;
  std::string replacement_utf8_;
  PrependScheme prepend_scheme_;
  bool split_;
};

}  // namespace sieve::tokenizer
