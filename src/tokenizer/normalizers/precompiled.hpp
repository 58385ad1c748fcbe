#pragma once

#include <array>
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
  // lookup() of one character, from a table for ASCII.
  [[nodiscard]] std::optional<std::string_view> lookup_char(std::string_view character) const;

  struct AsciiEntry {
    bool mapped = false;
    std::uint32_t begin = 0;  // in replacements_
    std::uint32_t length = 0;
  };

  std::vector<std::uint32_t> trie_;
  std::string replacements_;
  std::array<AsciiEntry, 128> ascii_{};
};

}  // namespace sieve::tokenizer
