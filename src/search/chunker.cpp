#include "search/chunker.hpp"

#include <algorithm>
#include <deque>

#include "sieve/error.hpp"

namespace sieve::search {
namespace {

bool is_ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool continues_code_point(std::string_view text, std::size_t i) {
  return i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;
}

// Where the piece of `text` that starts at `begin` ends. Pieces end before
// the whitespace that precedes a word, where every tokenizer Sieve reads
// ends a token whether it sees the piece alone or the whole text, so that
// ordinary text gets the tokens it would get whole. A run without
// whitespace longer than kMaxRunBytes (no word is; a hostile file of one
// endless word is) is cut at a code point boundary, which bounds a token's
// span and so a chunk's size.
std::size_t piece_end(std::string_view text, std::size_t begin) {
  const std::size_t limit = std::min(text.size(), begin + kChunkPieceBytes);
  std::size_t boundary = begin;
  std::size_t run = std::string_view::npos;  // where the current run of non-whitespace began
  for (std::size_t i = begin; i < limit; ++i) {
    if (is_ascii_space(text[i])) {
      if (i > begin && i + 1 < text.size() && !is_ascii_space(text[i + 1])) boundary = i;
      run = std::string_view::npos;
    } else if (run == std::string_view::npos) {
      run = i;
    } else if (i - run >= kMaxRunBytes) {
      std::size_t cut = i;
      while (cut > run && continues_code_point(text, cut)) --cut;
      return cut;
    }
  }
  if (limit == text.size()) return limit;
  if (boundary > begin) return boundary;
  std::size_t cut = limit;
  while (cut > begin + 1 && continues_code_point(text, cut)) --cut;
  return cut;
}

// The text's tokens (their byte spans; tokens without one, a normalizer's
// insertions, cannot bound a chunk), tokenized a piece at a time as the
// chunker asks for them and dropped once behind it: memory follows the
// window, not the document.
class TokenStream {
 public:
  TokenStream(const Tokenizer& tokenizer, std::string_view text) : tokenizer_(tokenizer), text_(text) {}

  // Whether the text has a token at index `i` (tokenizing up to it).
  bool has(std::size_t i) {
    while (count() <= i && next_piece_ < text_.size()) tokenize_piece();
    return count() > i;
  }
  [[nodiscard]] std::size_t count() const { return dropped_ + tokens_.size(); }
  [[nodiscard]] const Offsets& at(std::size_t i) const { return tokens_[i - dropped_]; }
  void drop_before(std::size_t i) {
    while (dropped_ < i && !tokens_.empty()) {
      tokens_.pop_front();
      ++dropped_;
    }
  }

 private:
  void tokenize_piece() {
    const std::size_t begin = next_piece_;
    next_piece_ = piece_end(text_, begin);
    const Encoding encoding = tokenizer_.encode(text_.substr(begin, next_piece_ - begin), false);
    for (const auto& offsets : encoding.offsets) {
      if (offsets.second > offsets.first) tokens_.emplace_back(begin + offsets.first, begin + offsets.second);
    }
  }

  const Tokenizer& tokenizer_;
  std::string_view text_;
  std::size_t next_piece_ = 0;
  std::deque<Offsets> tokens_;
  std::size_t dropped_ = 0;
};

}  // namespace

std::vector<ChunkSpan> chunk_text(const Tokenizer& tokenizer, std::string_view text, std::size_t chunk_tokens,
                                  std::size_t overlap_tokens, std::span<const std::size_t> breaks) {
  if (chunk_tokens == 0) throw Error(ErrorCode::kInvalidArgument, "chunk size must be at least one token");
  if (overlap_tokens >= chunk_tokens) {
    throw Error(ErrorCode::kInvalidArgument, "chunk overlap (" + std::to_string(overlap_tokens) +
                                                 " tokens) must be smaller than the chunk size (" +
                                                 std::to_string(chunk_tokens) + ")");
  }
  TokenStream tokens(tokenizer, text);
  std::vector<ChunkSpan> chunks;
  if (!tokens.has(0)) return chunks;
  // A token that touches the one before it continues the same word.
  const auto inside_word = [&](std::size_t i) { return i > 0 && tokens.at(i).first <= tokens.at(i - 1).second; };
  const auto span = [&](std::size_t first, std::size_t last) {
    std::size_t end = 0;
    for (std::size_t i = first; i < last; ++i) end = std::max<std::size_t>(end, tokens.at(i).second);
    return ChunkSpan{tokens.at(first).first, end};
  };
  // Whether one of `breaks` lies between token i - 1's start and token i's: then a unit begins with token i.
  const auto unit_starts = [&](std::size_t i) {
    const auto after = std::upper_bound(breaks.begin(), breaks.end(), tokens.at(i - 1).first);
    return after != breaks.end() && *after <= tokens.at(i).first;
  };
  std::size_t start = 0;
  while (true) {
    // Whether a token follows the window: then the window is full and may end earlier, on a unit's or a word's
    // boundary.
    const bool more = tokens.has(start + chunk_tokens);
    std::size_t stop = more ? start + chunk_tokens : tokens.count();
    if (more && !breaks.empty()) {
      std::size_t unit_stop = stop;
      while (unit_stop > start + chunk_tokens / 2 && !unit_starts(unit_stop)) --unit_stop;
      if (unit_stop > start + chunk_tokens / 2) {
        chunks.push_back(span(start, unit_stop));
        start = unit_stop;
        tokens.drop_before(start);
        continue;
      }
    }
    if (more) {
      // Give up at most half a window to end on a word boundary.
      std::size_t word_stop = stop;
      while (word_stop > start + chunk_tokens / 2 && inside_word(word_stop)) --word_stop;
      if (!inside_word(word_stop)) stop = word_stop;
    }
    chunks.push_back(span(start, stop));
    if (!more) break;
    std::size_t next = stop > overlap_tokens ? stop - overlap_tokens : 0;
    next = std::max(next, start + 1);
    std::size_t word_start = next;
    while (word_start > start + 1 && inside_word(word_start)) --word_start;
    if (!inside_word(word_start)) next = word_start;
    start = next;
    tokens.drop_before(start);
  }
  return chunks;
}

}  // namespace sieve::search
