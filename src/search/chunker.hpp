#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "sieve/tokenizer.hpp"

namespace sieve::search {

struct ChunkSpan {
  std::size_t begin = 0;  // byte offsets in the text
  std::size_t end = 0;
};

// The text is tokenized a piece of at most this many bytes at a time, each
// ending before the whitespace that precedes a word, so that memory follows
// the window and not the document.
inline constexpr std::size_t kChunkPieceBytes = std::size_t{64} << 10;
// A run of this many bytes without whitespace (no word is that long) is cut
// there, at a code point boundary, before it is tokenized: a token then
// spans at most this much text, and a chunk at most `chunk_tokens` times it.
inline constexpr std::size_t kMaxRunBytes = 4096;

// Windows of at most `chunk_tokens` tokens, each starting `overlap_tokens`
// before the previous one ended. Boundaries fall between tokens, and where
// the window allows, between words rather than between pieces of one word.
// `tokenizer` must not truncate (a chunker sees whole documents).
//
// `breaks` (ascending byte offsets) are where the text's own units begin --
// a function or class in source code: a window that must end early ends at
// the last of them in its second half, and the next window starts there,
// without overlap (a unit needs no context from the one before it).
std::vector<ChunkSpan> chunk_text(const Tokenizer& tokenizer, std::string_view text, std::size_t chunk_tokens,
                                  std::size_t overlap_tokens, std::span<const std::size_t> breaks = {});

}  // namespace sieve::search
