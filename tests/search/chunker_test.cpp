#include "search/chunker.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "sieve/error.hpp"
#include "support/paths.hpp"

namespace sieve::search {
namespace {

Tokenizer whole_text_tokenizer() {
  Tokenizer tokenizer = Tokenizer::from_file(testing::minilm_tokenizer());
  tokenizer.set_truncation(std::nullopt);
  tokenizer.set_padding(std::nullopt);
  return tokenizer;
}

std::string long_text() {
  std::string text;
  for (int i = 0; i < 120; ++i) {
    text += "Sentence number " + std::to_string(i) + " talks about tokenization, chunking and unbelievably ";
    text += "long words like antidisestablishmentarianism. ";
  }
  return text;
}

TEST(Chunker, ShortTextIsOneChunkOfItsTokens) {
  const auto tokenizer = whole_text_tokenizer();
  const std::string text = "  Hello, chunked world!  ";
  const auto chunks = chunk_text(tokenizer, text, 64, 8);
  ASSERT_EQ(chunks.size(), 1U);
  EXPECT_EQ(text.substr(chunks[0].begin, chunks[0].end - chunks[0].begin), "Hello, chunked world!");
}

TEST(Chunker, EmptyAndBlankTextHaveNoChunks) {
  const auto tokenizer = whole_text_tokenizer();
  EXPECT_TRUE(chunk_text(tokenizer, "", 16, 4).empty());
  EXPECT_TRUE(chunk_text(tokenizer, " \n\t ", 16, 4).empty());
}

TEST(Chunker, WindowsRespectTheSizeOverlapAndTokenBoundaries) {
  const auto tokenizer = whole_text_tokenizer();
  const std::string text = long_text();
  const Encoding whole = tokenizer.encode(text, false);
  std::set<std::size_t> token_begins;
  std::set<std::size_t> token_ends;
  for (const auto& [begin, end] : whole.offsets) {
    token_begins.insert(begin);
    token_ends.insert(end);
  }
  const std::size_t size = 50;
  const std::size_t overlap = 10;
  const auto chunks = chunk_text(tokenizer, text, size, overlap);
  ASSERT_GT(chunks.size(), 10U);
  EXPECT_EQ(chunks.front().begin, whole.offsets.front().first);
  EXPECT_EQ(chunks.back().end, whole.offsets.back().second);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const auto& chunk = chunks[i];
    // Never inside a token: both ends are token boundaries of the whole text.
    EXPECT_TRUE(token_begins.contains(chunk.begin)) << i;
    EXPECT_TRUE(token_ends.contains(chunk.end)) << i;
    const std::string piece = text.substr(chunk.begin, chunk.end - chunk.begin);
    EXPECT_LE(tokenizer.encode(piece, false).size(), size) << i << ": " << piece;
    if (i > 0) {
      // Consecutive chunks overlap, and each moves forward.
      EXPECT_LT(chunk.begin, chunks[i - 1].end) << i;
      EXPECT_GT(chunk.begin, chunks[i - 1].begin) << i;
    }
    if (i + 1 < chunks.size()) {
      // Word boundaries are preferred: no chunk ends inside "antidisestablishmentarianism".
      const char after = text[chunk.end];
      EXPECT_FALSE(std::isalnum(static_cast<unsigned char>(after)) &&
                   std::isalnum(static_cast<unsigned char>(text[chunk.end - 1])))
          << i << ": " << piece;
    }
  }
}

TEST(Chunker, ZeroOverlapTilesTheTokens) {
  const auto tokenizer = whole_text_tokenizer();
  const std::string text = long_text();
  const auto chunks = chunk_text(tokenizer, text, 40, 0);
  for (std::size_t i = 1; i < chunks.size(); ++i) EXPECT_GE(chunks[i].begin, chunks[i - 1].end) << i;
}

TEST(Chunker, WindowsEndWhereAUnitBeginsInTheirSecondHalfAndTheNextStartsThere) {
  const auto tokenizer = whole_text_tokenizer();
  // Ten "functions" of about 30 tokens each; a break at each one's start.
  std::string text;
  std::vector<std::size_t> breaks;
  for (int f = 0; f < 10; ++f) {
    if (f > 0) breaks.push_back(text.size());
    text += "def function_" + std::to_string(f) + "(value):\n    return value + " + std::to_string(f) +
            " * compute(value, other, more, arguments, here)\n\n";
  }
  const auto plain = chunk_text(tokenizer, text, 64, 8);
  const auto units = chunk_text(tokenizer, text, 64, 8, breaks);
  ASSERT_GT(units.size(), 2U);
  for (std::size_t i = 0; i + 1 < units.size(); ++i) {
    // Each window but the last ends right before a unit, and the next starts on it without overlap.
    EXPECT_TRUE(std::binary_search(breaks.begin(), breaks.end(), units[i + 1].begin)) << i;
    EXPECT_LE(units[i].end, units[i + 1].begin) << i;
    EXPECT_EQ(text.substr(units[i + 1].begin, 4), "def ") << i;
  }
  EXPECT_EQ(units.back().end, plain.back().end);
  // Without breaks, windows cut functions anywhere.
  bool cut_inside = false;
  for (std::size_t i = 1; i < plain.size(); ++i) {
    cut_inside |= !std::binary_search(breaks.begin(), breaks.end(), plain[i].begin);
  }
  EXPECT_TRUE(cut_inside);
  // A break in a window's first half is not taken: a window never shrinks below half its size.
  const std::vector<std::size_t> early = {text.find("return")};
  const auto half = chunk_text(tokenizer, text, 64, 8, early);
  EXPECT_EQ(half.front().end, plain.front().end);
}

TEST(Chunker, OverlapMustBeSmallerThanTheChunk) {
  const auto tokenizer = whole_text_tokenizer();
  EXPECT_THROW((void)chunk_text(tokenizer, "text", 8, 8), Error);
  EXPECT_THROW((void)chunk_text(tokenizer, "text", 0, 0), Error);
}

TEST(Chunker, MultiByteTextSlicesOnCharacterBoundaries) {
  const auto tokenizer = whole_text_tokenizer();
  std::string text;
  for (int i = 0; i < 60; ++i) text += "Ünïcödé wörds ørë fïnë 東京 ";
  for (const auto& chunk : chunk_text(tokenizer, text, 16, 4)) {
    const auto lead = static_cast<unsigned char>(text[chunk.begin]);
    EXPECT_NE(lead & 0xC0, 0x80) << chunk.begin;
    if (chunk.end < text.size()) {
      EXPECT_NE(static_cast<unsigned char>(text[chunk.end]) & 0xC0, 0x80);
    }
  }
}

// The windows the chunker made before it tokenized a piece at a time: the
// same algorithm over the whole text's tokens, kept here as the reference
// that piecewise tokenization must reproduce on ordinary text.
std::vector<ChunkSpan> whole_text_windows(const Tokenizer& tokenizer, std::string_view text, std::size_t chunk_tokens,
                                          std::size_t overlap_tokens) {
  const Encoding encoding = tokenizer.encode(text, false);
  std::vector<Offsets> tokens;
  for (const auto& offsets : encoding.offsets) {
    if (offsets.second > offsets.first) tokens.push_back(offsets);
  }
  std::vector<ChunkSpan> chunks;
  const std::size_t n = tokens.size();
  if (n == 0) return chunks;
  const auto inside_word = [&](std::size_t i) { return i > 0 && i < n && tokens[i].first <= tokens[i - 1].second; };
  std::size_t start = 0;
  while (true) {
    std::size_t stop = std::min(start + chunk_tokens, n);
    if (stop < n) {
      std::size_t word_stop = stop;
      while (word_stop > start + chunk_tokens / 2 && inside_word(word_stop)) --word_stop;
      if (!inside_word(word_stop)) stop = word_stop;
    }
    std::size_t end = 0;
    for (std::size_t i = start; i < stop; ++i) end = std::max<std::size_t>(end, tokens[i].second);
    chunks.push_back({tokens[start].first, end});
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

// Prose over several pieces: words of many scripts, punctuation, runs of
// spaces, tabs, newlines and CRLF between them.
std::string prose(std::size_t bytes) {
  static const char* const words[] = {"the",    "River",   "flows",      "naïve",  "café",   "東京",     "Привет",
                                      "don't",  "(maybe)", "well-known", "3.14",   "e-mail", "ÅNGSTRÖM", "🙂",
                                      "❤️", "a\u0301", "x",          "tokens", "!!!",    "über",     "ελληνικά"};
  static const char* const gaps[] = {" ", " ", " ", "  ", "\t", "\n", "\r\n", "\n\n", " \n "};
  std::mt19937 rng(7);
  std::string text;
  while (text.size() < bytes) {
    text += words[rng() % std::size(words)];
    text += gaps[rng() % std::size(gaps)];
  }
  return text;
}

std::vector<std::filesystem::path> shared_tokenizers() {
  std::vector<std::filesystem::path> files;
  const auto folder = testing::source_dir() / "../shared/tokenizers";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    if (std::filesystem::exists(entry.path() / "tokenizer.json")) files.push_back(entry.path() / "tokenizer.json");
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(Chunker, PiecewiseTokenizationGivesTheWholeTextsWindows) {
  // Pieces end before the whitespace that precedes a word, where WordPiece, byte-level BPE and Metaspace
  // tokenizers all end a token: every shared tokenizer must give the windows it gives the whole text.
  const std::string text = prose(3 * kChunkPieceBytes + 1234);
  auto files = shared_tokenizers();
  files.push_back(testing::minilm_tokenizer());
  for (const auto& file : files) {
    Tokenizer tokenizer = Tokenizer::from_file(file);
    tokenizer.set_truncation(std::nullopt);
    tokenizer.set_padding(std::nullopt);
    const auto expected = whole_text_windows(tokenizer, text, 64, 8);
    const auto chunks = chunk_text(tokenizer, text, 64, 8);
    ASSERT_EQ(chunks.size(), expected.size()) << file;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      EXPECT_EQ(chunks[i].begin, expected[i].begin) << file << " chunk " << i;
      EXPECT_EQ(chunks[i].end, expected[i].end) << file << " chunk " << i;
    }
  }
}

TEST(Chunker, ARunWithoutWhitespaceIsCutSoThatNoChunkGrowsWithIt) {
  // One endless "word" (a hostile file): WordPiece makes it one [UNK] token whose span, tokenized whole, would
  // be the entire text. Cut every kMaxRunBytes, each chunk spans at most chunk_tokens of those.
  const auto tokenizer = whole_text_tokenizer();
  const std::string text(20 * kMaxRunBytes + 17, 'a');
  const auto chunks = chunk_text(tokenizer, text, 4, 1);
  ASSERT_GT(chunks.size(), 1U);
  EXPECT_EQ(chunks.front().begin, 0U);
  EXPECT_EQ(chunks.back().end, text.size());
  for (const auto& chunk : chunks) EXPECT_LE(chunk.end - chunk.begin, 4 * kMaxRunBytes);
  // Multi-byte characters are cut between characters, never inside one.
  std::string cjk;
  while (cjk.size() < 3 * kMaxRunBytes) cjk += "東京タワー";
  for (const auto& chunk : chunk_text(tokenizer, cjk, 8, 2)) {
    EXPECT_NE(static_cast<unsigned char>(cjk[chunk.begin]) & 0xC0, 0x80) << chunk.begin;
    if (chunk.end < cjk.size()) {
      EXPECT_NE(static_cast<unsigned char>(cjk[chunk.end]) & 0xC0, 0x80) << chunk.end;
    }
  }
}

}  // namespace
}  // namespace sieve::search
