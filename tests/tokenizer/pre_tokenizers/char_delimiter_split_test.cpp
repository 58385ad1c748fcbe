#include <gtest/gtest.h>

#include "sieve/error.hpp"

#include "tokenizer/pre_tokenizers/pre_tokenize_test_util.hpp"

namespace sieve::tokenizer {
namespace {

using testing::hf_pieces;
using testing::make_pre_tokenizer;
using testing::pre_tokenize;

// Expected pieces come from Hugging Face tokenizers 0.23.3:
// pre_tokenizers.X(...).pre_tokenize_str(text), character offsets.

TEST(CharDelimiterSplitPreTokenizer, RemovesTheDelimiter) {
  const auto p = make_pre_tokenizer(R"({"type": "CharDelimiterSplit", "delimiter": "x"})");
  EXPECT_EQ(pre_tokenize(*p, "axbxxc"), hf_pieces("axbxxc", {{"a", 0, 1}, {"b", 2, 3}, {"c", 5, 6}}));
  EXPECT_EQ(pre_tokenize(*p, "xax"), hf_pieces("xax", {{"a", 1, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "x"), hf_pieces("x", {}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
  EXPECT_EQ(pre_tokenize(*p, "abc"), hf_pieces("abc", {{"abc", 0, 3}}));
}

TEST(CharDelimiterSplitPreTokenizer, MultiByteDelimiter) {
  const auto p = make_pre_tokenizer(R"({"type": "CharDelimiterSplit", "delimiter": "▁"})");
  EXPECT_EQ(pre_tokenize(*p, "▁a▁▁b"), hf_pieces("▁a▁▁b", {{"a", 1, 2}, {"b", 4, 5}}));
  EXPECT_EQ(pre_tokenize(*p, "café▁ok"), hf_pieces("café▁ok", {{"café", 0, 4}, {"ok", 5, 7}}));
}

TEST(CharDelimiterSplitPreTokenizer, DelimiterMustBeOneCharacter) {
  EXPECT_THROW(make_pre_tokenizer(R"({"type": "CharDelimiterSplit", "delimiter": "xy"})"), Error);
  EXPECT_THROW(make_pre_tokenizer(R"({"type": "CharDelimiterSplit", "delimiter": ""})"), Error);
  EXPECT_THROW(make_pre_tokenizer(R"({"type": "CharDelimiterSplit"})"), Error);
}

}  // namespace
}  // namespace sieve::tokenizer
