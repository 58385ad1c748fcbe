#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "sieve/tokenizer.hpp"

namespace sieve::search {

struct ChunkSpan {
  std::size_t begin = 0;  // byte offsets in the text
  std::size_t end = 0;
};

// Windows of at most `chunk_tokens` tokens, each starting `overlap_tokens`
// before the previous one ended. Boundaries fall between tokens, and where
// the window allows, between words rather than between pieces of one word.
// `tokenizer` must not truncate (a chunker sees whole documents).
std::vector<ChunkSpan> chunk_text(const Tokenizer& tokenizer, std::string_view text, std::size_t chunk_tokens,
                                  std::size_t overlap_tokens);

}  // namespace sieve::search
