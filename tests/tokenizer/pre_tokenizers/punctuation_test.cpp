#include <gtest/gtest.h>

#include "tokenizer/pre_tokenizers/pre_tokenize_test_util.hpp"

namespace sieve::tokenizer {
namespace {

using testing::hf_pieces;
using testing::make_pre_tokenizer;
using testing::pre_tokenize;

// Expected pieces come from Hugging Face tokenizers 0.23.3:
// pre_tokenizers.X(...).pre_tokenize_str(text), character offsets.

TEST(PunctuationPreTokenizer, IsolatesByDefault) {
  const auto p = make_pre_tokenizer(R"({"type": "Punctuation"})");
  EXPECT_EQ(pre_tokenize(*p, "Hey friend!     How are you?!?"),
            hf_pieces("Hey friend!     How are you?!?", {{"Hey friend", 0, 10},
                                                         {"!", 10, 11},
                                                         {"     How are you", 11, 27},
                                                         {"?", 27, 28},
                                                         {"!", 28, 29},
                                                         {"?", 29, 30}}));
  EXPECT_EQ(pre_tokenize(*p, "«quote» — 'x'"), hf_pieces("«quote» — 'x'", {{"«", 0, 1},
                                                                           {"quote", 1, 6},
                                                                           {"»", 6, 7},
                                                                           {" ", 7, 8},
                                                                           {"—", 8, 9},
                                                                           {" ", 9, 10},
                                                                           {"'", 10, 11},
                                                                           {"x", 11, 12},
                                                                           {"'", 12, 13}}));
  EXPECT_EQ(pre_tokenize(*p, "$5+3=8"),
            hf_pieces("$5+3=8", {{"$", 0, 1}, {"5", 1, 2}, {"+", 2, 3}, {"3", 3, 4}, {"=", 4, 5}, {"8", 5, 6}}));
  EXPECT_EQ(pre_tokenize(*p, "wait…"), hf_pieces("wait…", {{"wait", 0, 4}, {"…", 4, 5}}));
  EXPECT_EQ(pre_tokenize(*p, ",,a,,"),
            hf_pieces(",,a,,", {{",", 0, 1}, {",", 1, 2}, {"a", 2, 3}, {",", 3, 4}, {",", 4, 5}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
  EXPECT_EQ(pre_tokenize(*p, "no punctuation"), hf_pieces("no punctuation", {{"no punctuation", 0, 14}}));
}

TEST(PunctuationPreTokenizer, Removed) {
  const auto p = make_pre_tokenizer(R"({"type": "Punctuation", "behavior": "Removed"})");
  EXPECT_EQ(pre_tokenize(*p, "Hey friend!!  How?!"),
            hf_pieces("Hey friend!!  How?!", {{"Hey friend", 0, 10}, {"  How", 12, 17}}));
  EXPECT_EQ(pre_tokenize(*p, ",,a,,b."), hf_pieces(",,a,,b.", {{"a", 2, 3}, {"b", 5, 6}}));
  EXPECT_EQ(pre_tokenize(*p, "a"), hf_pieces("a", {{"a", 0, 1}}));
}

TEST(PunctuationPreTokenizer, MergedWithPrevious) {
  const auto p = make_pre_tokenizer(R"({"type": "Punctuation", "behavior": "MergedWithPrevious"})");
  EXPECT_EQ(
      pre_tokenize(*p, "Hey friend!!  How?!"),
      hf_pieces("Hey friend!!  How?!", {{"Hey friend!", 0, 11}, {"!", 11, 12}, {"  How?", 12, 18}, {"!", 18, 19}}));
  EXPECT_EQ(pre_tokenize(*p, ",,a,,b."),
            hf_pieces(",,a,,b.", {{",", 0, 1}, {",", 1, 2}, {"a,", 2, 4}, {",", 4, 5}, {"b.", 5, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "a"), hf_pieces("a", {{"a", 0, 1}}));
}

TEST(PunctuationPreTokenizer, MergedWithNext) {
  const auto p = make_pre_tokenizer(R"({"type": "Punctuation", "behavior": "MergedWithNext"})");
  EXPECT_EQ(pre_tokenize(*p, "Hey friend!!  How?!"),
            hf_pieces("Hey friend!!  How?!",
                      {{"Hey friend", 0, 10}, {"!", 10, 11}, {"!  How", 11, 17}, {"?", 17, 18}, {"!", 18, 19}}));
  EXPECT_EQ(pre_tokenize(*p, ",,a,,b."),
            hf_pieces(",,a,,b.", {{",", 0, 1}, {",a", 1, 3}, {",", 3, 4}, {",b", 4, 6}, {".", 6, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "a"), hf_pieces("a", {{"a", 0, 1}}));
}

TEST(PunctuationPreTokenizer, Contiguous) {
  const auto p = make_pre_tokenizer(R"({"type": "Punctuation", "behavior": "Contiguous"})");
  EXPECT_EQ(
      pre_tokenize(*p, "Hey friend!!  How?!"),
      hf_pieces("Hey friend!!  How?!", {{"Hey friend", 0, 10}, {"!!", 10, 12}, {"  How", 12, 17}, {"?!", 17, 19}}));
  EXPECT_EQ(pre_tokenize(*p, ",,a,,b."),
            hf_pieces(",,a,,b.", {{",,", 0, 2}, {"a", 2, 3}, {",,", 3, 5}, {"b", 5, 6}, {".", 6, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "a"), hf_pieces("a", {{"a", 0, 1}}));
}

}  // namespace
}  // namespace sieve::tokenizer
