#include <gtest/gtest.h>

#include "sieve/error.hpp"
#include "sieve/tokenizer.hpp"
#include "support/paths.hpp"

namespace sieve {
namespace {

// Expected values come from Hugging Face tokenizers 0.23.3 on the
// all-MiniLM-L6-v2 tokenizer.json.
Tokenizer batch_test_minilm() {
  Tokenizer t = Tokenizer::from_file(testing::minilm_tokenizer());
  t.set_padding(std::nullopt);
  t.set_truncation(std::nullopt);
  return t;
}

using Ids = std::vector<std::uint32_t>;

std::vector<Ids> ids_of(const std::vector<Encoding>& encodings) {
  std::vector<Ids> out;
  for (const auto& e : encodings) out.push_back(e.ids);
  return out;
}

TEST(TokenizerTruncation, PairOverflowingWindowsFollowHuggingFace) {
  auto t = batch_test_minilm();
  t.set_truncation(TruncationParams{10, TruncationStrategy::kLongestFirst, 1, Direction::kRight});
  const auto e = t.encode_pair("one two three four five six seven", "alpha beta gamma delta");
  EXPECT_EQ(e.ids, (Ids{101, 2028, 2048, 2093, 2176, 102, 6541, 8247, 13091, 102}));
  EXPECT_EQ(ids_of(e.overflowing), (std::vector<Ids>{{101, 2176, 2274, 2416, 2698, 102, 6541, 8247, 13091, 102},
                                                     {101, 2176, 2274, 2416, 2698, 102, 13091, 7160, 102},
                                                     {101, 2028, 2048, 2093, 2176, 102, 13091, 7160, 102}}));
}

TEST(TokenizerTruncation, LeftTruncationWithStride) {
  auto t = batch_test_minilm();
  t.set_truncation(TruncationParams{6, TruncationStrategy::kLongestFirst, 2, Direction::kLeft});
  const auto e = t.encode("one two three four five six seven");
  EXPECT_EQ(e.ids, (Ids{101, 2176, 2274, 2416, 2698, 102}));
  EXPECT_EQ(ids_of(e.overflowing),
            (std::vector<Ids>{{101, 2048, 2093, 2176, 2274, 102}, {101, 2028, 2048, 2093, 102}}));
}

TEST(TokenizerTruncation, StrideAsLongAsTheWindowIsAnError) {
  auto t = batch_test_minilm();
  t.set_truncation(TruncationParams{6, TruncationStrategy::kLongestFirst, 4, Direction::kRight});
  EXPECT_THROW((void)t.encode("one two three four five six seven"), Error);
}

TEST(TokenizerOffsets, CharacterOffsetsCountCodePoints) {
  auto t = batch_test_minilm();
  const std::string text = "naïve café 日本";
  const auto bytes = t.encode(text);
  EXPECT_EQ(bytes.offsets, (std::vector<Offsets>{{0, 0}, {0, 6}, {7, 12}, {13, 16}, {16, 19}, {0, 0}}));
  t.set_offset_unit(OffsetUnit::kChar);
  const auto chars = t.encode(text);
  EXPECT_EQ(chars.ids, bytes.ids);
  EXPECT_EQ(chars.offsets, (std::vector<Offsets>{{0, 0}, {0, 5}, {6, 10}, {11, 12}, {12, 13}, {0, 0}}));
  EXPECT_EQ(t.token_string(chars, 3, text), "日");
}

TEST(TokenizerBatch, ThreadsGiveTheSameEncodingsInOrder) {
  const auto t = batch_test_minilm();
  std::vector<std::string> texts;
  for (int i = 0; i < 500; ++i) texts.push_back("text number " + std::to_string(i) + std::string(i % 7, 'x'));
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  const auto one = t.encode_each(views, true, 1);
  const auto many = t.encode_each(views, true, 4);
  ASSERT_EQ(one.size(), many.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].ids, many[i].ids) << i;
    EXPECT_EQ(one[i].offsets, many[i].offsets) << i;
  }
  std::vector<TextPair> pairs;
  for (std::size_t i = 0; i + 1 < views.size(); ++i) pairs.push_back({views[i], views[i + 1]});
  const auto pair_one = t.encode_pair_each(pairs, true, 1);
  const auto pair_many = t.encode_pair_each(pairs, true, 3);
  for (std::size_t i = 0; i < pairs.size(); ++i) EXPECT_EQ(pair_one[i].type_ids, pair_many[i].type_ids) << i;
}

TEST(TokenizerBatch, AnErrorNamesTheFirstFailingInput) {
  const auto t = batch_test_minilm();
  std::vector<std::string> texts(300, "fine");
  texts[123] = "bad \xff";
  texts[250] = "also bad \xfe";
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  for (const std::size_t threads : {std::size_t{1}, std::size_t{4}}) {
    try {
      (void)t.encode_each(views, true, threads);
      FAIL() << "no error";
    } catch (const Error& e) {
      ASSERT_TRUE(e.input_index().has_value());
      EXPECT_EQ(*e.input_index(), 123U);
      EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
    }
  }
}

TEST(TokenizerBatch, BatchPaddingToLongestAndMultiple) {
  auto t = batch_test_minilm();
  PaddingParams padding;
  padding.pad_to_multiple_of = 8;
  t.set_padding(padding);
  const std::vector<std::string_view> texts = {"hello", "one two three four five six seven eight nine"};
  const auto batch = t.encode_batch(texts);
  EXPECT_EQ(batch[0].ids, (Ids{101, 7592, 102, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(batch[1].size(), 16U);
  // Each alone: padded to its own multiple of 8.
  EXPECT_EQ(t.encode_each(texts)[0].size(), 8U);
}

}  // namespace
}  // namespace sieve
