#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sieve/embedder.hpp"
#include "sieve/model_info.hpp"
#include "sieve/tokenizer.hpp"

namespace sieve::pipeline {

// Late chunking: a document encoded once, and each chunk's vector pooled from the token states of the tokens inside
// the chunk (so that a chunk's vector knows the text around it).
//
// A chunk is a byte range [begin, end) of the document. A token belongs to the chunk that holds its last byte (a
// SentencePiece token's offsets may take in the space before its word, which belongs to the previous chunk).

using ChunkSpan = TextSpan;

// The document made of `chunks` joined by `separator`, and each chunk's span in it.
struct JoinedChunks {
  std::string document;
  std::vector<ChunkSpan> spans;
};
JoinedChunks join_chunks(std::span<const std::string_view> chunks, std::string_view separator);

// One window of a long document's encoding: its special tokens around the content tokens [first, first + count).
struct Window {
  std::size_t first = 0;
  std::size_t count = 0;
};

// How a document's encoding (special tokens included) is run: its content tokens in windows of at most
// `max_length` tokens with its special tokens, consecutive windows sharing `overlap` content tokens (unset: a quarter
// of a window's text; at most half of it, so that the windows hold at most twice the document's tokens). One window
// when it fits.
struct WindowPlan {
  std::size_t leading = 0;   // special tokens before the content
  std::size_t trailing = 0;  // special tokens after it
  std::vector<Window> windows;
  // For each content token, the window whose state it takes: the one where it has the most context on its
  // nearer side.
  std::vector<std::size_t> owner;
};
WindowPlan plan_windows(const Encoding& document, std::size_t max_length, std::optional<std::size_t> overlap = {});

// The encoding of one window: the document's leading special tokens, the window's content, its trailing ones.
Encoding window_encoding(const Encoding& document, const WindowPlan& plan, const Window& window);

// For each chunk, the content tokens (indexes into the content, after the leading special tokens) it holds.
std::vector<std::vector<std::size_t>> chunk_tokens(const Encoding& document, const WindowPlan& plan,
                                                   std::span<const ChunkSpan> spans);

// Each chunk's vector: its tokens' rows of `states` ([content tokens x dim], row-major) pooled by each of `modes`
// into its block of the row (as sentence-transformers concatenates them). [chunks x (dim * modes)], row-major.
std::vector<float> pool_chunks(std::span<const float> states, std::size_t dim,
                               const std::vector<std::vector<std::size_t>>& tokens, const std::vector<Pooling>& modes);

// Whether late chunking can pool by `mode` (by the tokens of a span: mean, max, mean / sqrt(length)); the others
// pick one position of the whole input.
bool late_chunking_pools_by(Pooling mode) noexcept;

}  // namespace sieve::pipeline
