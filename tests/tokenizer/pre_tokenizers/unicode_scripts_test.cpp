#include <gtest/gtest.h>

#include "tokenizer/pre_tokenizers/pre_tokenize_test_util.hpp"

namespace sieve::tokenizer {
namespace {

using testing::hf_pieces;
using testing::make_pre_tokenizer;
using testing::pre_tokenize;

// Expected pieces come from Hugging Face tokenizers 0.23.3:
// pre_tokenizers.X(...).pre_tokenize_str(text), character offsets.

TEST(UnicodeScriptsPreTokenizer, SplitsWhereTheScriptChanges) {
  const auto p = make_pre_tokenizer(R"({"type": "UnicodeScripts"})");
  EXPECT_EQ(pre_tokenize(*p, "どこで生れ。Yes"),
            hf_pieces("どこで生れ。Yes", {{"どこで生れ", 0, 5}, {"。", 5, 6}, {"Yes", 6, 9}}));
  EXPECT_EQ(pre_tokenize(*p, "Apples are りんご 林檎"),
            hf_pieces("Apples are りんご 林檎", {{"Apples are ", 0, 11}, {"りんご 林檎", 11, 17}}));
  EXPECT_EQ(pre_tokenize(*p, "  abc"), hf_pieces("  abc", {{"abc", 2, 5}}));
  EXPECT_EQ(pre_tokenize(*p, "   "), hf_pieces("   ", {}));
  EXPECT_EQ(pre_tokenize(*p, "abc  def"), hf_pieces("abc  def", {{"abc  def", 0, 8}}));
  EXPECT_EQ(pre_tokenize(*p, "ab1 "), hf_pieces("ab1 ", {{"ab", 0, 2}, {"1 ", 2, 4}}));
  EXPECT_EQ(pre_tokenize(*p, "x あ"), hf_pieces("x あ", {{"x ", 0, 2}, {"あ", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "ー"), hf_pieces("ー", {{"ー", 0, 1}}));
  EXPECT_EQ(pre_tokenize(*p, "한국어abc"), hf_pieces("한국어abc", {{"한국어", 0, 3}, {"abc", 3, 6}}));
  EXPECT_EQ(pre_tokenize(*p, "Привет мир hello"),
            hf_pieces("Привет мир hello", {{"Привет мир ", 0, 11}, {"hello", 11, 16}}));
  EXPECT_EQ(pre_tokenize(*p, "عربي 123"), hf_pieces("عربي 123", {{"عربي ", 0, 5}, {"123", 5, 8}}));
  EXPECT_EQ(pre_tokenize(*p, "\u0301a"), hf_pieces("\u0301a", {{"\u0301", 0, 1}, {"a", 1, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "a\u0301b"), hf_pieces("a\u0301b", {{"a", 0, 1}, {"\u0301", 1, 2}, {"b", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "😀x"), hf_pieces("😀x", {{"😀", 0, 1}, {"x", 1, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "カタカナ漢字"), hf_pieces("カタカナ漢字", {{"カタカナ漢字", 0, 6}}));
  EXPECT_EQ(pre_tokenize(*p, "tab\tx"), hf_pieces("tab\tx", {{"tab", 0, 3}, {"\t", 3, 4}, {"x", 4, 5}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
  EXPECT_EQ(pre_tokenize(*p, "a🫠b"), hf_pieces("a🫠b", {{"a🫠b", 0, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "aࡰb"), hf_pieces("aࡰb", {{"aࡰb", 0, 3}}));
}

}  // namespace
}  // namespace sieve::tokenizer
