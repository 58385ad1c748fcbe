#pragma once

#include <optional>

#include "sieve/tokenizer.hpp"

namespace sieve::tokenizer {

// Shortens one encoding to `length` tokens, from the end (right) or start
// (left); the rest goes to `overflowing` in windows that overlap by
// `stride` tokens, as Hugging Face does.
void truncate_encoding(Encoding& encoding, std::size_t length, std::size_t stride, Direction direction);
// Hugging Face's truncate_encodings: `params.max_length` already excludes
// the special tokens the post-processor will add.
void truncate_encodings(Encoding& first, std::optional<Encoding>& second, const TruncationParams& params);
// Pads to `length` tokens.
void pad_encoding(Encoding& encoding, std::size_t length, const PaddingParams& params);
// Target length for a batch whose longest encoding has `longest` tokens.
std::size_t padded_length(std::size_t longest, const PaddingParams& params);

}  // namespace sieve::tokenizer
