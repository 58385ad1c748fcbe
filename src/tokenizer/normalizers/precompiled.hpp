#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// SentencePiece's compiled normalization rules (precompiled_charsmap): a
// Darts double-array trie from UTF-8 keys to NUL-terminated replacements.
// Applied as Hugging Face's spm_precompiled crate does: per extended grapheme
// cluster, the whole cluster if under 6 bytes and mapped, else per character,
// with tokenizers' alignment changes for it (quirks included).
class Precompiled final : public Normalizer {
 public:
  // `charsmap` is the decoded blob; empty means no rule.
  explicit Precompiled(std::string_view charsmap);
  static std::unique_ptr<Normalizer> from_json(const JsonView& node);

  void normalize(NormalizedString& text) const override;

  // The replacement of the shortest mapped prefix of `key`, as the crate's
  // transform.
  [[nodiscard]] std::optional<std::string_view> lookup(std::string_view key) const;

 private:
  std::vector<std::uint32_t> trie_;
  std::string replacements_;
};

}  // namespace sieve::tokenizer
