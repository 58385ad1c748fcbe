#include "search/chunker.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>

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

}  // namespace
}  // namespace sieve::search
