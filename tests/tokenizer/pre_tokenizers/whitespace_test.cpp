#include <gtest/gtest.h>

#include "tokenizer/pre_tokenizers/pre_tokenize_test_util.hpp"

namespace sieve::tokenizer {
namespace {

using testing::hf_pieces;
using testing::make_pre_tokenizer;
using testing::Piece;
using testing::pieces_of;
using testing::pre_tokenize;

// Expected pieces come from Hugging Face tokenizers 0.23.3:
// pre_tokenizers.X(...).pre_tokenize_str(text), character offsets.

TEST(WhitespacePreTokenizer, KeepsWordAndSymbolRuns) {
  const auto p = make_pre_tokenizer(R"({"type": "Whitespace"})");
  EXPECT_EQ(pre_tokenize(*p, "Hey man!"), hf_pieces("Hey man!", {{"Hey", 0, 3}, {"man", 4, 7}, {"!", 7, 8}}));
  EXPECT_EQ(pre_tokenize(*p, "How are you doing?"),
            hf_pieces("How are you doing?",
                      {{"How", 0, 3}, {"are", 4, 7}, {"you", 8, 11}, {"doing", 12, 17}, {"?", 17, 18}}));
  EXPECT_EQ(pre_tokenize(*p, "\n"), hf_pieces("\n", {}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
  EXPECT_EQ(pre_tokenize(*p, "  leading and trailing  "),
            hf_pieces("  leading and trailing  ", {{"leading", 2, 9}, {"and", 10, 13}, {"trailing", 14, 22}}));
  EXPECT_EQ(pre_tokenize(*p, "don't stop—ever"),
            hf_pieces("don't stop—ever",
                      {{"don", 0, 3}, {"'", 3, 4}, {"t", 4, 5}, {"stop", 6, 10}, {"—", 10, 11}, {"ever", 11, 15}}));
  EXPECT_EQ(pre_tokenize(*p, "café naïve"), hf_pieces("café naïve", {{"café", 0, 4}, {"naïve", 5, 10}}));
  EXPECT_EQ(pre_tokenize(*p, "x²+y₂"), hf_pieces("x²+y₂", {{"x", 0, 1}, {"²+", 1, 3}, {"y", 3, 4}, {"₂", 4, 5}}));
  EXPECT_EQ(pre_tokenize(*p, "e\u0301 combining"),
            hf_pieces("e\u0301 combining", {{"e\u0301", 0, 2}, {"combining", 3, 12}}));
  EXPECT_EQ(pre_tokenize(*p, "日本語テキスト。"),
            hf_pieces("日本語テキスト。", {{"日本語テキスト", 0, 7}, {"。", 7, 8}}));
  EXPECT_EQ(pre_tokenize(*p, "tab\tsep"), hf_pieces("tab\tsep", {{"tab", 0, 3}, {"sep", 4, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "a_b-c"), hf_pieces("a_b-c", {{"a_b", 0, 3}, {"-", 3, 4}, {"c", 4, 5}}));
  EXPECT_EQ(pre_tokenize(*p, "Ⓐⓑ circled"), hf_pieces("Ⓐⓑ circled", {{"Ⓐⓑ", 0, 2}, {"circled", 3, 10}}));
  EXPECT_EQ(pre_tokenize(*p, "١٢٣ digits"), hf_pieces("١٢٣ digits", {{"١٢٣", 0, 3}, {"digits", 4, 10}}));
  EXPECT_EQ(pre_tokenize(*p, "Ⅻ roman"), hf_pieces("Ⅻ roman", {{"Ⅻ", 0, 1}, {"roman", 2, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "zero\u200Bwidth\u200Djoin"),
            hf_pieces("zero\u200Bwidth\u200Djoin", {{"zero", 0, 4}, {"\u200B", 4, 5}, {"width\u200Djoin", 5, 15}}));
  EXPECT_EQ(pre_tokenize(*p, "a\u00A0b\u3000c"), hf_pieces("a\u00A0b\u3000c", {{"a", 0, 1}, {"b", 2, 3}, {"c", 4, 5}}));
}

TEST(WhitespaceSplitPreTokenizer, SplitsOnUnicodeWhitespace) {
  const auto p = make_pre_tokenizer(R"({"type": "WhitespaceSplit"})");
  EXPECT_EQ(pre_tokenize(*p, "Hey, man, Good?"),
            hf_pieces("Hey, man, Good?", {{"Hey,", 0, 4}, {"man,", 5, 9}, {"Good?", 10, 15}}));
  EXPECT_EQ(pre_tokenize(*p, "  a\u3000b\u2003c\u00A0d  "),
            hf_pieces("  a\u3000b\u2003c\u00A0d  ", {{"a", 2, 3}, {"b", 4, 5}, {"c", 6, 7}, {"d", 8, 9}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
  EXPECT_EQ(pre_tokenize(*p, "\u200B zero width"),
            hf_pieces("\u200B zero width", {{"\u200B", 0, 1}, {"zero", 2, 6}, {"width", 7, 12}}));
  EXPECT_EQ(pre_tokenize(*p, "a\u0085b"), hf_pieces("a\u0085b", {{"a", 0, 1}, {"b", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "one\ntwo\015\nthree"),
            hf_pieces("one\ntwo\015\nthree", {{"one", 0, 3}, {"two", 4, 7}, {"three", 9, 14}}));
}

TEST(WhitespacePreTokenizer, TokenizedSplitsPassThrough) {
  for (const char* json : {R"({"type": "Whitespace"})", R"({"type": "WhitespaceSplit"})"}) {
    const auto p = make_pre_tokenizer(json);
    std::vector<Split> splits;
    splits.push_back(Split{NormalizedString("a b"), {}, false});
    splits.push_back(Split{NormalizedString("[X] y", 3), {Token{7, 0, 5}}, true});
    splits.push_back(Split{NormalizedString("c d", 8), {}, false});
    p->pre_tokenize(splits);
    ASSERT_EQ(splits.size(), 5U) << json;
    EXPECT_EQ(pieces_of(splits),
              (std::vector<Piece>{{"a", 0, 1}, {"b", 2, 3}, {"[X] y", 3, 8}, {"c", 8, 9}, {"d", 10, 11}}));
    EXPECT_TRUE(splits[2].tokenized);
    EXPECT_EQ(splits[2].tokens.size(), 1U);
  }
}

}  // namespace
}  // namespace sieve::tokenizer
