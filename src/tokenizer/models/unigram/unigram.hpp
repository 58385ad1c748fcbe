#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tokenizer/core/byte_trie.hpp"
#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"
#include "tokenizer/models/bpe/word_cache.hpp"
#include "tokenizer/models/wordpiece/wordpiece.hpp"

namespace sieve::tokenizer {

// SentencePiece's unigram model as Hugging Face runs it (model.rs
// encode_optimized): the segmentation of a piece into vocabulary entries
// with the highest total score, found by dynamic programming over the
// vocabulary entries that start at each character. A character no entry
// covers alone becomes the unknown token, and runs of unknowns fuse into one.
class Unigram final : public Model {
 public:
  using Pieces = std::vector<std::pair<std::string, double>>;

  // Throws when unk_id is set but not an index into the vocabulary.
  Unigram(Pieces pieces, std::optional<std::uint32_t> unk_id, bool byte_fallback, std::size_t cache_capacity = 10000);
  static std::unique_ptr<Model> from_json(const JsonView& node);

  void tokenize(std::string_view piece, std::vector<Token>& out) const override;
  [[nodiscard]] std::optional<std::uint32_t> token_to_id(std::string_view token) const override;
  [[nodiscard]] std::string_view id_to_token(std::uint32_t id) const override;
  [[nodiscard]] std::size_t vocab_size() const override { return pieces_.size(); }

 private:
  void emit_unknown_run(std::string_view piece, std::uint32_t begin, std::uint32_t end, std::vector<Token>& out) const;
  [[nodiscard]] std::uint32_t missing_unk() const;

  Pieces pieces_;
  Vocab token_to_id_;
  std::optional<std::uint32_t> unk_id_;
  bool byte_fallback_;
  double unk_score_;
  // Every entry by its bytes, for the entries starting at each position.
  ByteTrie trie_;
  std::array<std::optional<std::uint32_t>, 256> byte_ids_{};
  WordCache cache_;
};

}  // namespace sieve::tokenizer
