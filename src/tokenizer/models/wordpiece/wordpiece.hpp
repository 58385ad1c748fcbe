#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/core/byte_trie.hpp"
#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"
#include "tokenizer/models/vocab.hpp"

namespace sieve::tokenizer {

// Greedy longest-match-first WordPiece, as BERT and Hugging Face do it: a
// word that cannot be covered entirely by vocabulary pieces becomes one
// unknown token. Each longest match is one walk down a byte trie (word
// starts, and continuations keyed without their prefix), so a word costs
// time linear in its length instead of one hash lookup per candidate end.
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
  [[nodiscard]] std::string_view id_to_token(std::uint32_t id) const override { return id_to_token_(id); }
  [[nodiscard]] std::size_t vocab_size() const override { return vocab_.size(); }
  [[nodiscard]] std::size_t id_bound() const override { return id_to_token_.bound(); }

 private:
  void push_unknown(std::string_view piece, std::vector<Token>& out) const;

  Vocab vocab_;
  IdToToken id_to_token_;
  Options options_;
  ByteTrie starts_;
  ByteTrie continuations_;
  std::optional<std::uint32_t> unk_id_;
};

}  // namespace sieve::tokenizer
