#include "search/chunker.hpp"

#include <algorithm>

#include "sieve/error.hpp"

namespace sieve::search {

std::vector<ChunkSpan> chunk_text(const Tokenizer& tokenizer, std::string_view text, std::size_t chunk_tokens,
                                  std::size_t overlap_tokens) {
  if (chunk_tokens == 0) throw Error(ErrorCode::kInvalidArgument, "chunk size must be at least one token");
  if (overlap_tokens >= chunk_tokens) {
    throw Error(ErrorCode::kInvalidArgument, "chunk overlap (" + std::to_string(overlap_tokens) +
                                                 " tokens) must be smaller than the chunk size (" +
                                                 std::to_string(chunk_tokens) + ")");
  }
  const Encoding encoding = tokenizer.encode(text, false);
  // Tokens without a span (a normalizer's insertions) cannot bound a chunk.
  std::vector<Offsets> tokens;
  tokens.reserve(encoding.size());
  for (const auto& offsets : encoding.offsets) {
    if (offsets.second > offsets.first) tokens.push_back(offsets);
  }
  std::vector<ChunkSpan> chunks;
  const std::size_t n = tokens.size();
  if (n == 0) return chunks;
  // A token that touches the one before it continues the same word.
  const auto inside_word = [&](std::size_t i) { return i > 0 && i < n && tokens[i].first <= tokens[i - 1].second; };
  const auto span = [&](std::size_t first, std::size_t last) {
    std::size_t end = 0;
    for (std::size_t i = first; i < last; ++i) end = std::max<std::size_t>(end, tokens[i].second);
    return ChunkSpan{tokens[first].first, end};
  };
  std::size_t start = 0;
  while (true) {
    std::size_t stop = std::min(start + chunk_tokens, n);
    if (stop < n) {
      // Give up at most half a window to end on a word boundary.
      std::size_t word_stop = stop;
      while (word_stop > start + chunk_tokens / 2 && inside_word(word_stop)) --word_stop;
      if (!inside_word(word_stop)) stop = word_stop;
    }
    chunks.push_back(span(start, stop));
    if (stop >= n) break;
    std::size_t next = stop > overlap_tokens ? stop - overlap_tokens : 0;
    next = std::max(next, start + 1);
    std::size_t word_start = next;
    while (word_start > start + 1 && inside_word(word_start)) --word_start;
    if (!inside_word(word_start)) next = word_start;
    start = next;
  }
  return chunks;
}

}  // namespace sieve::search
