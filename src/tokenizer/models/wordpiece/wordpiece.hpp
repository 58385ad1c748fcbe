#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using Vocab = std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>>;

// Greedy longest-match-first WordPiece, as BERT and Hugging Face do it: a
// word that cannot be covered entirely by vocabulary pieces becomes one
// unknown token.
class WordPiece final : public Model {
 public:
  struct Options {
    std::string unk_token = "[UNK]";
    std::string continuing_subword_prefix = "##";
    std::size_t max_input_chars_per_word = 100;
  };

  WordPiece(Vocab vocab, Options options);
  static std::unique_ptr<Model> from_json(const JsonView& node);

  void tokenize(std::string_view piece, std::vector<Token>& out) const override;
  [[nodiscard]] std::optional<std::uint32_t> token_to_id(std::string_view token) const override;
  [[nodiscard]] std::string_view id_to_token(std::uint32_t id) const override;
  [[nodiscard]] std::size_t vocab_size() const override { return vocab_.size(); }

 private:
  void push_unknown(std::string_view piece, std::vector<Token>& out) const;

  Vocab vocab_;
  // Pieces that may continue a word, keyed without the prefix, so lookups
  // need no string building.
  Vocab continuations_;
  std::vector<std::string> id_to_token_;
  Options options_;
  std::size_t longest_start_ = 0;
  std::size_t longest_continuation_ = 0;
};

}  // namespace sieve::tokenizer
