#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sieve/tokenizer.hpp"
#include "tokenizer/core/added_vocabulary.hpp"
#include "tokenizer/core/components.hpp"

namespace sieve {

// The assembled pipeline: added tokens, normalizer, pre-tokenizer, model,
// post-processor, then truncation and padding.
class TokenizerImpl final : public tokenizer::TokenLookup {
 public:
  std::unique_ptr<tokenizer::Normalizer> normalizer;
  std::unique_ptr<tokenizer::PreTokenizer> pre_tokenizer;
  std::unique_ptr<tokenizer::Model> model;
  std::unique_ptr<tokenizer::PostProcessor> post_processor;
  std::unique_ptr<tokenizer::Decoder> decoder;
  tokenizer::AddedVocabulary added;
  std::optional<TruncationParams> truncation;
  std::optional<PaddingParams> padding;
  InvalidUtf8 invalid_utf8 = InvalidUtf8::kError;
  OffsetUnit offset_unit = OffsetUnit::kByte;

  // Tokens of one sequence, before special tokens, truncation and padding.
  [[nodiscard]] Encoding encode_sequence(std::string_view text) const;
  // `texts` are the inputs (one, or the two of a pair), for token strings
  // that come from the text rather than the vocabulary.
  [[nodiscard]] Encoding post_process(Encoding first, std::optional<Encoding> second, bool add_special_tokens,
                                      std::span<const std::string_view> texts) const;
  // The string of an added token as matched in `text`, if the token is one
  // matched there; else empty.
  [[nodiscard]] std::string_view matched_token_text(std::uint32_t id, Offsets offsets, std::string_view text) const;
  // Encodes inputs [0, count) with `encode_one(i)`, on up to `threads` threads.
  template <typename EncodeOne>
  [[nodiscard]] std::vector<Encoding> encode_many(std::size_t count, std::size_t threads, EncodeOne encode_one) const;
  void pad_batch(std::vector<Encoding>& encodings) const;
  [[nodiscard]] std::size_t added_tokens(bool is_pair) const;
  // Added tokens first, then the model, as Hugging Face looks ids up.
  [[nodiscard]] std::string_view id_to_token(std::uint32_t id) const override;
};

std::unique_ptr<TokenizerImpl> load_tokenizer_json(std::string_view json, std::string_view origin);

}  // namespace sieve
