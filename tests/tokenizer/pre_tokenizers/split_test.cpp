#include <gtest/gtest.h>

#include "sieve/error.hpp"

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

TEST(SplitPreTokenizer, StringRemoved) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed", "invert": false})");
  EXPECT_EQ(pre_tokenize(*p, "the-final--countdown"),
            hf_pieces("the-final--countdown", {{"the", 0, 3}, {"final", 4, 9}, {"countdown", 11, 20}}));
  EXPECT_EQ(pre_tokenize(*p, "-a-"), hf_pieces("-a-", {{"a", 1, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "--"), hf_pieces("--", {}));
  EXPECT_EQ(pre_tokenize(*p, "none"), hf_pieces("none", {{"none", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
}

TEST(SplitPreTokenizer, StringRemovedInverted) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed", "invert": true})");
  EXPECT_EQ(pre_tokenize(*p, "the-final--countdown"),
            hf_pieces("the-final--countdown", {{"-", 3, 4}, {"-", 9, 10}, {"-", 10, 11}}));
  EXPECT_EQ(pre_tokenize(*p, "-a-"), hf_pieces("-a-", {{"-", 0, 1}, {"-", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "--"), hf_pieces("--", {{"-", 0, 1}, {"-", 1, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "none"), hf_pieces("none", {}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
}

TEST(SplitPreTokenizer, StringIsolated) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"String": "-"}, "behavior": "Isolated", "invert": false})");
  EXPECT_EQ(
      pre_tokenize(*p, "the-final--countdown"),
      hf_pieces("the-final--countdown",
                {{"the", 0, 3}, {"-", 3, 4}, {"final", 4, 9}, {"-", 9, 10}, {"-", 10, 11}, {"countdown", 11, 20}}));
  EXPECT_EQ(pre_tokenize(*p, "-a-"), hf_pieces("-a-", {{"-", 0, 1}, {"a", 1, 2}, {"-", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "--"), hf_pieces("--", {{"-", 0, 1}, {"-", 1, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "none"), hf_pieces("none", {{"none", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
}

TEST(SplitPreTokenizer, StringIsolatedInverted) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"String": "-"}, "behavior": "Isolated", "invert": true})");
  EXPECT_EQ(
      pre_tokenize(*p, "the-final--countdown"),
      hf_pieces("the-final--countdown",
                {{"the", 0, 3}, {"-", 3, 4}, {"final", 4, 9}, {"-", 9, 10}, {"-", 10, 11}, {"countdown", 11, 20}}));
  EXPECT_EQ(pre_tokenize(*p, "-a-"), hf_pieces("-a-", {{"-", 0, 1}, {"a", 1, 2}, {"-", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "--"), hf_pieces("--", {{"-", 0, 1}, {"-", 1, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "none"), hf_pieces("none", {{"none", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
}

TEST(SplitPreTokenizer, StringMergedWithPrevious) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious", "invert": false})");
  EXPECT_EQ(
      pre_tokenize(*p, "the-final--countdown"),
      hf_pieces("the-final--countdown", {{"the-", 0, 4}, {"final-", 4, 10}, {"-", 10, 11}, {"countdown", 11, 20}}));
  EXPECT_EQ(pre_tokenize(*p, "-a-"), hf_pieces("-a-", {{"-", 0, 1}, {"a-", 1, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "--"), hf_pieces("--", {{"-", 0, 1}, {"-", 1, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "none"), hf_pieces("none", {{"none", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
}

TEST(SplitPreTokenizer, StringMergedWithPreviousInverted) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious", "invert": true})");
  EXPECT_EQ(pre_tokenize(*p, "the-final--countdown"),
            hf_pieces("the-final--countdown", {{"the", 0, 3}, {"-final", 3, 9}, {"-", 9, 10}, {"-countdown", 10, 20}}));
  EXPECT_EQ(pre_tokenize(*p, "-a-"), hf_pieces("-a-", {{"-a", 0, 2}, {"-", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "--"), hf_pieces("--", {{"-", 0, 1}, {"-", 1, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "none"), hf_pieces("none", {{"none", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
}

TEST(SplitPreTokenizer, StringMergedWithNext) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext", "invert": false})");
  EXPECT_EQ(pre_tokenize(*p, "the-final--countdown"),
            hf_pieces("the-final--countdown", {{"the", 0, 3}, {"-final", 3, 9}, {"-", 9, 10}, {"-countdown", 10, 20}}));
  EXPECT_EQ(pre_tokenize(*p, "-a-"), hf_pieces("-a-", {{"-a", 0, 2}, {"-", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "--"), hf_pieces("--", {{"-", 0, 1}, {"-", 1, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "none"), hf_pieces("none", {{"none", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
}

TEST(SplitPreTokenizer, StringMergedWithNextInverted) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext", "invert": true})");
  EXPECT_EQ(
      pre_tokenize(*p, "the-final--countdown"),
      hf_pieces("the-final--countdown", {{"the-", 0, 4}, {"final-", 4, 10}, {"-", 10, 11}, {"countdown", 11, 20}}));
  EXPECT_EQ(pre_tokenize(*p, "-a-"), hf_pieces("-a-", {{"-", 0, 1}, {"a-", 1, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "--"), hf_pieces("--", {{"-", 0, 1}, {"-", 1, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "none"), hf_pieces("none", {{"none", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
}

TEST(SplitPreTokenizer, StringContiguous) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"String": "-"}, "behavior": "Contiguous", "invert": false})");
  EXPECT_EQ(pre_tokenize(*p, "the-final--countdown"),
            hf_pieces("the-final--countdown",
                      {{"the", 0, 3}, {"-", 3, 4}, {"final", 4, 9}, {"--", 9, 11}, {"countdown", 11, 20}}));
  EXPECT_EQ(pre_tokenize(*p, "-a-"), hf_pieces("-a-", {{"-", 0, 1}, {"a", 1, 2}, {"-", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "--"), hf_pieces("--", {{"--", 0, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "none"), hf_pieces("none", {{"none", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
}

TEST(SplitPreTokenizer, StringContiguousInverted) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"String": "-"}, "behavior": "Contiguous", "invert": true})");
  EXPECT_EQ(pre_tokenize(*p, "the-final--countdown"),
            hf_pieces("the-final--countdown",
                      {{"the", 0, 3}, {"-", 3, 4}, {"final", 4, 9}, {"--", 9, 11}, {"countdown", 11, 20}}));
  EXPECT_EQ(pre_tokenize(*p, "-a-"), hf_pieces("-a-", {{"-", 0, 1}, {"a", 1, 2}, {"-", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "--"), hf_pieces("--", {{"--", 0, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "none"), hf_pieces("none", {{"none", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
}

TEST(SplitPreTokenizer, EmptyRegexMatchesRemoved) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"Regex": "a*"}, "behavior": "Removed", "invert": false})");
  EXPECT_EQ(pre_tokenize(*p, "baaacab"), hf_pieces("baaacab", {{"b", 0, 1}, {"c", 4, 5}, {"b", 6, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "aaa"), hf_pieces("aaa", {}));
  EXPECT_EQ(pre_tokenize(*p, "xyz"), hf_pieces("xyz", {{"x", 0, 1}, {"y", 1, 2}, {"z", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "é"), hf_pieces("é", {{"é", 0, 1}}));
}

TEST(SplitPreTokenizer, EmptyRegexMatchesRemovedInverted) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"Regex": "a*"}, "behavior": "Removed", "invert": true})");
  EXPECT_EQ(pre_tokenize(*p, "baaacab"), hf_pieces("baaacab", {{"aaa", 1, 4}, {"a", 5, 6}}));
  EXPECT_EQ(pre_tokenize(*p, "xyz"), hf_pieces("xyz", {}));
}

TEST(SplitPreTokenizer, EmptyRegexMatchesIsolated) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"Regex": "a*"}, "behavior": "Isolated", "invert": false})");
  EXPECT_EQ(pre_tokenize(*p, "baaacab"),
            hf_pieces("baaacab", {{"b", 0, 1}, {"aaa", 1, 4}, {"c", 4, 5}, {"a", 5, 6}, {"b", 6, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "aaa"), hf_pieces("aaa", {{"aaa", 0, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "xyz"), hf_pieces("xyz", {{"x", 0, 1}, {"y", 1, 2}, {"z", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "é"), hf_pieces("é", {{"é", 0, 1}}));
}

TEST(SplitPreTokenizer, EmptyRegexMatchesIsolatedInverted) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"Regex": "a*"}, "behavior": "Isolated", "invert": true})");
  EXPECT_EQ(pre_tokenize(*p, "baaacab"),
            hf_pieces("baaacab", {{"b", 0, 1}, {"aaa", 1, 4}, {"c", 4, 5}, {"a", 5, 6}, {"b", 6, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "xyz"), hf_pieces("xyz", {{"x", 0, 1}, {"y", 1, 2}, {"z", 2, 3}}));
}

TEST(SplitPreTokenizer, EmptyRegexMatchesMergedWithPrevious) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Split", "pattern": {"Regex": "a*"}, "behavior": "MergedWithPrevious", "invert": false})");
  EXPECT_EQ(pre_tokenize(*p, "baaacab"), hf_pieces("baaacab", {{"baaa", 0, 4}, {"ca", 4, 6}, {"b", 6, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "aaa"), hf_pieces("aaa", {{"aaa", 0, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "xyz"), hf_pieces("xyz", {{"x", 0, 1}, {"y", 1, 2}, {"z", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "é"), hf_pieces("é", {{"é", 0, 1}}));
}

TEST(SplitPreTokenizer, EmptyRegexMatchesMergedWithPreviousInverted) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Split", "pattern": {"Regex": "a*"}, "behavior": "MergedWithPrevious", "invert": true})");
  EXPECT_EQ(pre_tokenize(*p, "baaacab"), hf_pieces("baaacab", {{"b", 0, 1}, {"aaac", 1, 5}, {"ab", 5, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "xyz"), hf_pieces("xyz", {{"x", 0, 1}, {"y", 1, 2}, {"z", 2, 3}}));
}

TEST(SplitPreTokenizer, EmptyRegexMatchesMergedWithNext) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Split", "pattern": {"Regex": "a*"}, "behavior": "MergedWithNext", "invert": false})");
  EXPECT_EQ(pre_tokenize(*p, "baaacab"), hf_pieces("baaacab", {{"b", 0, 1}, {"aaac", 1, 5}, {"ab", 5, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "aaa"), hf_pieces("aaa", {{"aaa", 0, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "xyz"), hf_pieces("xyz", {{"x", 0, 1}, {"y", 1, 2}, {"z", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "é"), hf_pieces("é", {{"é", 0, 1}}));
}

TEST(SplitPreTokenizer, EmptyRegexMatchesMergedWithNextInverted) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Split", "pattern": {"Regex": "a*"}, "behavior": "MergedWithNext", "invert": true})");
  EXPECT_EQ(pre_tokenize(*p, "baaacab"), hf_pieces("baaacab", {{"baaa", 0, 4}, {"ca", 4, 6}, {"b", 6, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "xyz"), hf_pieces("xyz", {{"x", 0, 1}, {"y", 1, 2}, {"z", 2, 3}}));
}

TEST(SplitPreTokenizer, EmptyRegexMatchesContiguous) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"Regex": "a*"}, "behavior": "Contiguous", "invert": false})");
  EXPECT_EQ(pre_tokenize(*p, "baaacab"),
            hf_pieces("baaacab", {{"b", 0, 1}, {"aaa", 1, 4}, {"c", 4, 5}, {"a", 5, 6}, {"b", 6, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "aaa"), hf_pieces("aaa", {{"aaa", 0, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "xyz"), hf_pieces("xyz", {{"x", 0, 1}, {"y", 1, 2}, {"z", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "é"), hf_pieces("é", {{"é", 0, 1}}));
}

TEST(SplitPreTokenizer, EmptyRegexMatchesContiguousInverted) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"Regex": "a*"}, "behavior": "Contiguous", "invert": true})");
  EXPECT_EQ(pre_tokenize(*p, "baaacab"),
            hf_pieces("baaacab", {{"b", 0, 1}, {"aaa", 1, 4}, {"c", 4, 5}, {"a", 5, 6}, {"b", 6, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "xyz"), hf_pieces("xyz", {{"x", 0, 1}, {"y", 1, 2}, {"z", 2, 3}}));
}

TEST(SplitPreTokenizer, RegexWhitespace) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"Regex": "\\s+"}, "behavior": "Removed", "invert": false})");
  EXPECT_EQ(pre_tokenize(*p, "Hey, man!"), hf_pieces("Hey, man!", {{"Hey,", 0, 4}, {"man!", 5, 9}}));
  EXPECT_EQ(pre_tokenize(*p, "  a \t b  "), hf_pieces("  a \t b  ", {{"a", 2, 3}, {"b", 6, 7}}));
}

TEST(SplitPreTokenizer, EmptyStringMatchesBetweenCharacters) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"String": ""}, "behavior": "Isolated", "invert": false})");
  EXPECT_EQ(pre_tokenize(*p, "abc"), hf_pieces("abc", {{"a", 0, 1}, {"b", 1, 2}, {"c", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "é!"), hf_pieces("é!", {{"é", 0, 1}, {"!", 1, 2}}));
}

TEST(SplitPreTokenizer, StringIsLiteral) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Split", "pattern": {"String": ".*"}, "behavior": "Isolated", "invert": false})");
  EXPECT_EQ(pre_tokenize(*p, "a.*b..*"), hf_pieces("a.*b..*", {{"a", 0, 1}, {".*", 1, 3}, {"b.", 3, 5}, {".*", 5, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "abc"), hf_pieces("abc", {{"abc", 0, 3}}));
}

TEST(SplitPreTokenizer, ClipPattern) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Split", "pattern": {"Regex": "<\\|startoftext\\|>|<\\|endoftext\\|>|'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+"}, "behavior": "Removed", "invert": true})");
  EXPECT_EQ(pre_tokenize(*p, "a photo of a cat's 2024 toys!!"),
            hf_pieces("a photo of a cat's 2024 toys!!", {{"a", 0, 1},
                                                         {"photo", 2, 7},
                                                         {"of", 8, 10},
                                                         {"a", 11, 12},
                                                         {"cat", 13, 16},
                                                         {"'s", 16, 18},
                                                         {"2", 19, 20},
                                                         {"0", 20, 21},
                                                         {"2", 21, 22},
                                                         {"4", 22, 23},
                                                         {"toys", 24, 28},
                                                         {"!!", 28, 30}}));
  EXPECT_EQ(pre_tokenize(*p, "<|startoftext|>hi<|endoftext|>"),
            hf_pieces("<|startoftext|>hi<|endoftext|>",
                      {{"<|startoftext|>", 0, 15}, {"hi", 15, 17}, {"<|endoftext|>", 17, 30}}));
  EXPECT_EQ(pre_tokenize(*p, "  spaces\tand\nnewlines  "),
            hf_pieces("  spaces\tand\nnewlines  ", {{"spaces", 2, 8}, {"and", 9, 12}, {"newlines", 13, 21}}));
}

TEST(SplitPreTokenizer, RejectsBadJson) {
  EXPECT_THROW(make_pre_tokenizer(R"({"type": "Split", "pattern": {"String": "-"}, "behavior": "removed"})"), Error);
  EXPECT_THROW(make_pre_tokenizer(R"({"type": "Split", "pattern": "-", "behavior": "Removed"})"), Error);
  EXPECT_THROW(make_pre_tokenizer(R"({"type": "Split", "pattern": {"Glob": "-"}, "behavior": "Removed"})"), Error);
  EXPECT_THROW(make_pre_tokenizer(R"({"type": "Split", "pattern": {"Regex": "("}, "behavior": "Removed"})"), Error);
}

TEST(SplitPreTokenizer, TokenizedSplitsPassThrough) {
  const auto p = make_pre_tokenizer(R"({"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed"})");
  std::vector<Split> splits;
  splits.push_back(Split{NormalizedString("a-b"), {}, false});
  splits.push_back(Split{NormalizedString("-", 3), {Token{1, 0, 1}}, true});
  p->pre_tokenize(splits);
  EXPECT_EQ(pieces_of(splits), (std::vector<Piece>{{"a", 0, 1}, {"b", 2, 3}, {"-", 3, 4}}));
  EXPECT_TRUE(splits[2].tokenized);
}

}  // namespace
}  // namespace sieve::tokenizer
