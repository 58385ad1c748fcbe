#include "pipeline/late_chunking.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "sieve/error.hpp"

// Late chunking's plan: windows of a long document, the window each token's state comes from, and which tokens
// each chunk holds. (Parity of the vectors with sentence-transformers: tests/integration/test_late_chunking.py.)
namespace sieve::pipeline {
namespace {

// An encoding of `content` text tokens, each `width` bytes with `gap` bytes between, between [CLS] and [SEP].
Encoding document_of(std::size_t content, std::uint32_t width = 3, std::uint32_t gap = 1) {
  Encoding e;
  const auto add = [&](std::uint32_t id, Offsets offsets, bool special) {
    e.ids.push_back(id);
    e.type_ids.push_back(0);
    e.offsets.push_back(offsets);
    e.special_tokens_mask.push_back(special ? 1 : 0);
    e.attention_mask.push_back(1);
  };
  add(101, {0, 0}, true);
  for (std::uint32_t i = 0; i < content; ++i) add(1000 + i, {i * (width + gap), i * (width + gap) + width}, false);
  add(102, {0, 0}, true);
  return e;
}

TEST(LateChunking, JoinsChunksWithTheSeparatorAndKnowsTheirSpans) {
  const std::vector<std::string_view> chunks{"ab", "", "cde"};
  const JoinedChunks joined = join_chunks(chunks, " | ");
  EXPECT_EQ(joined.document, "ab |  | cde");
  ASSERT_EQ(joined.spans.size(), 3U);
  EXPECT_EQ(joined.document.substr(joined.spans[0].begin, joined.spans[0].end - joined.spans[0].begin), "ab");
  EXPECT_EQ(joined.spans[1].begin, joined.spans[1].end);
  EXPECT_EQ(joined.document.substr(joined.spans[2].begin), "cde");
}

TEST(LateChunking, ADocumentThatFitsIsOneWindow) {
  const Encoding doc = document_of(10);
  const WindowPlan plan = plan_windows(doc, 12, 3);
  EXPECT_EQ(plan.leading, 1U);
  EXPECT_EQ(plan.trailing, 1U);
  ASSERT_EQ(plan.windows.size(), 1U);
  EXPECT_EQ(plan.windows[0].first, 0U);
  EXPECT_EQ(plan.windows[0].count, 10U);
  EXPECT_EQ(window_encoding(doc, plan, plan.windows[0]).ids, doc.ids);
}

TEST(LateChunking, ALongDocumentRunsInOverlappingWindowsAndEachTokenHasItsBestContext) {
  const Encoding doc = document_of(20);
  // 8 text tokens per window, 2 shared: windows start at 0, 6, 12 (the last one holds the 8 left).
  const WindowPlan plan = plan_windows(doc, 10, 2);
  ASSERT_EQ(plan.windows.size(), 3U);
  EXPECT_EQ(plan.windows[1].first, 6U);
  EXPECT_EQ(plan.windows[2].first, 12U);
  EXPECT_EQ(plan.windows[2].count, 8U);
  const Encoding second = window_encoding(doc, plan, plan.windows[1]);
  ASSERT_EQ(second.size(), 10U);
  EXPECT_EQ(second.ids.front(), 101U);
  EXPECT_EQ(second.ids[1], 1006U);
  EXPECT_EQ(second.ids.back(), 102U);
  ASSERT_EQ(plan.owner.size(), 20U);
  // Tokens 6 and 7 are in windows 0 (at its end) and 1 (at its start): 6 has one token after it in window 0 and
  // none before it in window 1, so window 0; 7 has none after it in window 0 and one before it in window 1.
  EXPECT_EQ(plan.owner[0], 0U);
  EXPECT_EQ(plan.owner[6], 0U);
  EXPECT_EQ(plan.owner[7], 1U);
  EXPECT_EQ(plan.owner[10], 1U);
  EXPECT_EQ(plan.owner[13], 2U);  // the last of window 1, the second of window 2
  EXPECT_EQ(plan.owner[19], 2U);
  for (std::size_t t = 0; t < plan.owner.size(); ++t) {
    const Window& w = plan.windows[plan.owner[t]];
    EXPECT_TRUE(t >= w.first && t < w.first + w.count) << t;
  }
}

TEST(LateChunking, AChunkHoldsTheTokensWhoseLastByteIsInside) {
  Encoding doc = document_of(4);  // tokens at bytes [0,3) [4,7) [8,11) [12,15)
  // A SentencePiece token that takes in the space before its word: [3,7) belongs to the chunk holding byte 6.
  doc.offsets[2] = {3, 7};
  const WindowPlan plan = plan_windows(doc, 16, 0);
  const std::vector<ChunkSpan> spans{{0, 3}, {4, 11}, {12, 15}, {15, 15}};
  const auto tokens = chunk_tokens(doc, plan, spans);
  ASSERT_EQ(tokens.size(), 4U);
  EXPECT_EQ(tokens[0], (std::vector<std::size_t>{0}));
  EXPECT_EQ(tokens[1], (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(tokens[2], (std::vector<std::size_t>{3}));
  EXPECT_TRUE(tokens[3].empty());
  // Overlapping chunks each get their tokens.
  const std::vector<ChunkSpan> overlapping{{0, 7}, {4, 15}};
  const auto both = chunk_tokens(doc, plan, overlapping);
  EXPECT_EQ(both[0], (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(both[1], (std::vector<std::size_t>{1, 2, 3}));
}

TEST(LateChunking, PoolsEachChunkByTheModelsModes) {
  const std::vector<float> states{1, 2, 3, 4, 5, 0, 7, 8};  // 4 tokens, 2 wide
  const std::vector<std::vector<std::size_t>> tokens{{0, 1}, {2, 3}};
  const std::vector<float> rows = pool_chunks(states, 2, tokens, {Pooling::kMean, Pooling::kMax});
  EXPECT_EQ(rows, (std::vector<float>{2, 3, 3, 4, 6, 4, 7, 8}));
  EXPECT_TRUE(late_chunking_pools_by(Pooling::kMeanSqrtLen));
  EXPECT_FALSE(late_chunking_pools_by(Pooling::kCls));
  EXPECT_FALSE(late_chunking_pools_by(Pooling::kLastToken));
}

TEST(LateChunking, RefusesWindowsWithoutRoomForText) {
  const Encoding doc = document_of(5);
  EXPECT_THROW((void)plan_windows(doc, 2, 0), Error);
  EXPECT_THROW((void)plan_windows(doc, 6, 4), Error);
  // More than half a window shared would run the document many times over: 10 text tokens per window, 5 at most.
  EXPECT_NO_THROW((void)plan_windows(document_of(40), 12, 5));
  EXPECT_THROW((void)plan_windows(document_of(40), 12, 6), Error);
}

TEST(LateChunking, TheDefaultOverlapIsAQuarterOfTheWindowsText) {
  // 2 special tokens: 40 text tokens per window of 42, 10 shared, so windows start every 30.
  const WindowPlan plan = plan_windows(document_of(100), 42);
  ASSERT_EQ(plan.windows.size(), 3U);
  EXPECT_EQ(plan.windows[1].first, 30U);
  EXPECT_EQ(plan.windows[2].first, 60U);
}

TEST(LateChunking, EveryTokenOfALongDocumentTakesAWindowThatHoldsIt) {
  const WindowPlan plan = plan_windows(document_of(5000), 130, 64);  // 128 text tokens, half shared
  ASSERT_EQ(plan.owner.size(), 5000U);
  for (std::size_t token = 0; token < plan.owner.size(); ++token) {
    const Window& w = plan.windows.at(plan.owner[token]);
    ASSERT_TRUE(token >= w.first && token < w.first + w.count) << token;
    // The nearer side has at least a quarter of a window of context, but at the document's ends.
    const std::size_t context = std::min(token - w.first, w.first + w.count - 1 - token);
    if (token >= 128 && token + 128 < 5000) {
      EXPECT_GE(context, 31U) << token;
    }
  }
}

}  // namespace
}  // namespace sieve::pipeline
