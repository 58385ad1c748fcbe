#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

struct AddedToken {
  std::uint32_t id = 0;
  std::string content;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
  bool special = false;
};

// Tokens from tokenizer.json's "added_tokens", cut out of the text before
// the model sees it: those with normalized=false are matched in the raw
// input, the others in its normalized form, leftmost-longest, as Hugging
// Face does.
class AddedVocabulary {
 public:
  AddedVocabulary() = default;
  AddedVocabulary(std::vector<AddedToken> tokens, const Normalizer* normalizer);
  static std::vector<AddedToken> parse(const JsonView& node);

  // Normalizes `input` and splits it around added tokens.
  void extract_and_normalize(std::string_view input, const Normalizer* normalizer, std::vector<Split>& out) const;

  [[nodiscard]] const std::vector<AddedToken>& tokens() const noexcept { return tokens_; }
  [[nodiscard]] const AddedToken* find(std::string_view content) const;
  [[nodiscard]] const AddedToken* find(std::uint32_t id) const;

 private:
  struct Matcher {
    std::vector<std::string> patterns;
    std::vector<std::size_t> token_index;                     // parallel to patterns
    std::array<std::vector<std::size_t>, 256> by_first_byte;  // pattern indices, longest first
    [[nodiscard]] bool empty() const noexcept { return patterns.empty(); }
  };
  static Matcher build_matcher(std::vector<std::pair<std::string, std::size_t>> entries);
  void split_matches(NormalizedString text, const Matcher& matcher, std::vector<Split>& out) const;

  std::vector<AddedToken> tokens_;
  std::unordered_map<std::uint32_t, std::size_t> by_id_;
  std::unordered_map<std::string, std::size_t> by_content_;
  Matcher raw_;
  Matcher normalized_;
};

}  // namespace sieve::tokenizer
