#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"
#include "tokenizer/models/bpe/flat_u64_map.hpp"
#include "tokenizer/models/bpe/word_cache.hpp"
#include "tokenizer/models/vocab.hpp"

namespace sieve::tokenizer {

// Byte-pair encoding as Hugging Face does it: split a piece into characters
// (or their byte tokens, or unknown tokens), then apply the lowest-ranked
// merge among adjacent symbols, leftmost first, until none applies.
class Bpe final : public Model {
 public:
  struct Options {
    std::optional<std::string> unk_token;
    std::string continuing_subword_prefix;
    std::string end_of_word_suffix;
    bool fuse_unk = false;
    bool byte_fallback = false;
    bool ignore_merges = false;
    std::size_t cache_capacity = 10000;  // Hugging Face's DEFAULT_CACHE_CAPACITY; 0 disables
  };
  using Merges = std::vector<std::pair<std::string, std::string>>;

  // Throws when a merge names a token (or makes one) that is not in the vocabulary.
  Bpe(Vocab vocab, const Merges& merges, Options options);
  static std::unique_ptr<Model> from_json(const JsonView& node);

  void tokenize(std::string_view piece, std::vector<Token>& out) const override;
  [[nodiscard]] std::optional<std::uint32_t> token_to_id(std::string_view token) const override;
  [[nodiscard]] std::string_view id_to_token(std::uint32_t id) const override { return id_to_token_(id); }
  [[nodiscard]] std::size_t vocab_size() const override { return vocab_.size(); }
  [[nodiscard]] std::size_t id_bound() const override { return id_to_token_.bound(); }

  // Symbol counts above this use a heap instead of rescanning every pair per
  // merge; both give the same result. Exposed for tests.
  static constexpr std::size_t kHeapThreshold = 48;

 private:
  // A symbol of the word being merged; `next_rank`/`next_id` describe the
  // merge with the symbol that follows, kNoMerge when there is none.
  struct Symbol {
    std::uint32_t id;
    std::uint32_t len;
    std::uint32_t next_rank;
    std::uint32_t next_id;
  };
  static constexpr std::uint32_t kNoMerge = ~std::uint32_t{0};
  static constexpr std::uint32_t kNoId = ~std::uint32_t{0};

  void build_char_table();
  [[nodiscard]] std::uint32_t char_id(std::uint32_t key, unsigned variant) const noexcept;
  void split_into_symbols(std::string_view piece, std::vector<Symbol>& symbols) const;
  void append_byte_tokens(std::string_view piece, std::size_t begin, std::size_t end, unsigned variant,
                          std::vector<Symbol>& symbols, bool& done) const;
  void merge_by_scanning(std::vector<Symbol>& symbols) const;
  void merge_with_heap(std::vector<Symbol>& symbols) const;
  void set_next_merge(Symbol& left, std::uint32_t right_id) const noexcept;
  [[nodiscard]] std::uint32_t unk_id() const;

  Vocab vocab_;
  IdToToken id_to_token_;
  Options options_;
  // (left id << 32 | right id) -> (rank << 32 | merged id).
  FlatU64Map merges_;
  // The id of each character as it appears at the start, middle or end of a
  // word (prefix and suffix included), so splitting a piece builds no
  // strings. Keys come from char_key(); variant = continuing | final << 1.
  static constexpr std::size_t kDenseChars = 0x800;
  std::array<std::vector<std::uint32_t>, 4> dense_char_ids_;
  FlatU64Map sparse_char_ids_;
  // Which of the four variants are distinct: with no prefix (or suffix) the
  // continuing (final) variant is the plain one, and sharing the table keeps
  // it small in the CPU cache.
  unsigned variant_mask_ = 0;
  std::array<std::uint32_t, 256> byte_ids_{};
  std::optional<std::uint32_t> unk_id_;
  WordCache cache_;
};

}  // namespace sieve::tokenizer
