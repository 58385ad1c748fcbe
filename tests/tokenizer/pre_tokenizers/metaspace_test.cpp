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

TEST(MetaspacePreTokenizer, PrependsAlwaysByDefault) {
  const auto p = make_pre_tokenizer(R"({"type": "Metaspace", "replacement": "▁"})");
  EXPECT_EQ(pre_tokenize(*p, "Hey friend!"), hf_pieces("Hey friend!", {{"▁Hey", 0, 3}, {"▁friend!", 3, 11}}));
  EXPECT_EQ(pre_tokenize(*p, "Hey   friend!"),
            hf_pieces("Hey   friend!", {{"▁Hey", 0, 3}, {"▁", 3, 4}, {"▁", 4, 5}, {"▁friend!", 5, 13}}));
  EXPECT_EQ(pre_tokenize(*p, " Hey"), hf_pieces(" Hey", {{"▁Hey", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, "▁Hey"), hf_pieces("▁Hey", {{"▁Hey", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
  EXPECT_EQ(pre_tokenize(*p, "  "), hf_pieces("  ", {{"▁", 0, 1}, {"▁", 1, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "café à la"), hf_pieces("café à la", {{"▁café", 0, 4}, {"▁à", 4, 6}, {"▁la", 6, 9}}));
  EXPECT_EQ(pre_tokenize(*p, "a▁b c"), hf_pieces("a▁b c", {{"▁a", 0, 1}, {"▁b", 1, 3}, {"▁c", 3, 5}}));
  EXPECT_EQ(pre_tokenize(*p, "tab\tsep"), hf_pieces("tab\tsep", {{"▁tab\tsep", 0, 7}}));
}

TEST(MetaspacePreTokenizer, LegacyAddPrefixSpace) {
  const auto p =
      make_pre_tokenizer(R"({"type": "Metaspace", "replacement": "▁", "str_rep": "▁", "add_prefix_space": true})");
  EXPECT_EQ(pre_tokenize(*p, "Hey friend!"), hf_pieces("Hey friend!", {{"▁Hey", 0, 3}, {"▁friend!", 3, 11}}));
  EXPECT_EQ(pre_tokenize(*p, "Hey   friend!"),
            hf_pieces("Hey   friend!", {{"▁Hey", 0, 3}, {"▁", 3, 4}, {"▁", 4, 5}, {"▁friend!", 5, 13}}));
  EXPECT_EQ(pre_tokenize(*p, " Hey"), hf_pieces(" Hey", {{"▁Hey", 0, 4}}));
}

TEST(MetaspacePreTokenizer, Never) {
  const auto p = make_pre_tokenizer(R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never"})");
  EXPECT_EQ(pre_tokenize(*p, "Hey friend!"), hf_pieces("Hey friend!", {{"Hey", 0, 3}, {"▁friend!", 3, 11}}));
  EXPECT_EQ(pre_tokenize(*p, "Hey   friend!"),
            hf_pieces("Hey   friend!", {{"Hey", 0, 3}, {"▁", 3, 4}, {"▁", 4, 5}, {"▁friend!", 5, 13}}));
  EXPECT_EQ(pre_tokenize(*p, " Hey"), hf_pieces(" Hey", {{"▁Hey", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, "▁Hey"), hf_pieces("▁Hey", {{"▁Hey", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
  EXPECT_EQ(pre_tokenize(*p, "  "), hf_pieces("  ", {{"▁", 0, 1}, {"▁", 1, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "café à la"), hf_pieces("café à la", {{"café", 0, 4}, {"▁à", 4, 6}, {"▁la", 6, 9}}));
  EXPECT_EQ(pre_tokenize(*p, "a▁b c"), hf_pieces("a▁b c", {{"a", 0, 1}, {"▁b", 1, 3}, {"▁c", 3, 5}}));
  EXPECT_EQ(pre_tokenize(*p, "tab\tsep"), hf_pieces("tab\tsep", {{"tab\tsep", 0, 7}}));
}

TEST(MetaspacePreTokenizer, NeverWithLegacyFalse) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "add_prefix_space": false})");
  EXPECT_EQ(pre_tokenize(*p, "Hey friend!"), hf_pieces("Hey friend!", {{"Hey", 0, 3}, {"▁friend!", 3, 11}}));
  EXPECT_EQ(pre_tokenize(*p, "Hey   friend!"),
            hf_pieces("Hey   friend!", {{"Hey", 0, 3}, {"▁", 3, 4}, {"▁", 4, 5}, {"▁friend!", 5, 13}}));
  EXPECT_EQ(pre_tokenize(*p, " Hey"), hf_pieces(" Hey", {{"▁Hey", 0, 4}}));
}

TEST(MetaspacePreTokenizer, First) {
  const auto p = make_pre_tokenizer(R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first"})");
  EXPECT_EQ(pre_tokenize(*p, "Hey friend!"), hf_pieces("Hey friend!", {{"▁Hey", 0, 3}, {"▁friend!", 3, 11}}));
  EXPECT_EQ(pre_tokenize(*p, "Hey   friend!"),
            hf_pieces("Hey   friend!", {{"▁Hey", 0, 3}, {"▁", 3, 4}, {"▁", 4, 5}, {"▁friend!", 5, 13}}));
  EXPECT_EQ(pre_tokenize(*p, " Hey"), hf_pieces(" Hey", {{"▁Hey", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, "▁Hey"), hf_pieces("▁Hey", {{"▁Hey", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
  EXPECT_EQ(pre_tokenize(*p, "  "), hf_pieces("  ", {{"▁", 0, 1}, {"▁", 1, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "café à la"), hf_pieces("café à la", {{"▁café", 0, 4}, {"▁à", 4, 6}, {"▁la", 6, 9}}));
  EXPECT_EQ(pre_tokenize(*p, "a▁b c"), hf_pieces("a▁b c", {{"▁a", 0, 1}, {"▁b", 1, 3}, {"▁c", 3, 5}}));
  EXPECT_EQ(pre_tokenize(*p, "tab\tsep"), hf_pieces("tab\tsep", {{"▁tab\tsep", 0, 7}}));
}

TEST(MetaspacePreTokenizer, NoSplit) {
  const auto p = make_pre_tokenizer(R"({"type": "Metaspace", "replacement": "▁", "split": false})");
  EXPECT_EQ(pre_tokenize(*p, "Hey friend!"), hf_pieces("Hey friend!", {{"▁Hey▁friend!", 0, 11}}));
  EXPECT_EQ(pre_tokenize(*p, "Hey   friend!"), hf_pieces("Hey   friend!", {{"▁Hey▁▁▁friend!", 0, 13}}));
  EXPECT_EQ(pre_tokenize(*p, " Hey"), hf_pieces(" Hey", {{"▁Hey", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, "▁Hey"), hf_pieces("▁Hey", {{"▁Hey", 0, 4}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
  EXPECT_EQ(pre_tokenize(*p, "  "), hf_pieces("  ", {{"▁▁", 0, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "café à la"), hf_pieces("café à la", {{"▁café▁à▁la", 0, 9}}));
  EXPECT_EQ(pre_tokenize(*p, "a▁b c"), hf_pieces("a▁b c", {{"▁a▁b▁c", 0, 5}}));
  EXPECT_EQ(pre_tokenize(*p, "tab\tsep"), hf_pieces("tab\tsep", {{"▁tab\tsep", 0, 7}}));
}

TEST(MetaspacePreTokenizer, OtherReplacement) {
  const auto p = make_pre_tokenizer(R"({"type": "Metaspace", "replacement": "_", "prepend_scheme": "always"})");
  EXPECT_EQ(pre_tokenize(*p, "Hey friend_x"),
            hf_pieces("Hey friend_x", {{"_Hey", 0, 3}, {"_friend", 3, 10}, {"_x", 10, 12}}));
  EXPECT_EQ(pre_tokenize(*p, "été ok"), hf_pieces("été ok", {{"_été", 0, 3}, {"_ok", 3, 6}}));
}

TEST(MetaspacePreTokenizer, T5Small) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": "▁", "str_rep": "▁", "add_prefix_space": true}]})");
  EXPECT_EQ(pre_tokenize(*p, "Hello world!"), hf_pieces("Hello world!", {{"▁Hello", 0, 5}, {"▁world!", 6, 12}}));
  EXPECT_EQ(pre_tokenize(*p, "  two  spaces "), hf_pieces("  two  spaces ", {{"▁two", 2, 5}, {"▁spaces", 7, 13}}));
  EXPECT_EQ(pre_tokenize(*p, "▁already"), hf_pieces("▁already", {{"▁already", 0, 8}}));
}

TEST(MetaspacePreTokenizer, AfterWhitespaceSplitFirst) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first"}]})");
  EXPECT_EQ(pre_tokenize(*p, "hello world"), hf_pieces("hello world", {{"▁hello", 0, 5}, {"world", 6, 11}}));
  EXPECT_EQ(pre_tokenize(*p, " hello world"), hf_pieces(" hello world", {{"hello", 1, 6}, {"world", 7, 12}}));
}

TEST(MetaspacePreTokenizer, AfterWhitespaceSplitAlways) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"}]})");
  EXPECT_EQ(pre_tokenize(*p, "hello world"), hf_pieces("hello world", {{"▁hello", 0, 5}, {"▁world", 6, 11}}));
  EXPECT_EQ(pre_tokenize(*p, " hello world"), hf_pieces(" hello world", {{"▁hello", 1, 6}, {"▁world", 7, 12}}));
}

TEST(MetaspacePreTokenizer, AfterWhitespaceSplitNever) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never"}]})");
  EXPECT_EQ(pre_tokenize(*p, "hello world"), hf_pieces("hello world", {{"hello", 0, 5}, {"world", 6, 11}}));
  EXPECT_EQ(pre_tokenize(*p, " hello world"), hf_pieces(" hello world", {{"hello", 1, 6}, {"world", 7, 12}}));
}

TEST(MetaspacePreTokenizer, FirstAfterPunctuation) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Sequence", "pretokenizers": [{"type": "Punctuation"}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first"}]})");
  EXPECT_EQ(pre_tokenize(*p, "!hey you"), hf_pieces("!hey you", {{"▁!", 0, 1}, {"hey", 1, 4}, {"▁you", 4, 8}}));
  EXPECT_EQ(pre_tokenize(*p, "hey, you"), hf_pieces("hey, you", {{"▁hey", 0, 3}, {",", 3, 4}, {"▁you", 4, 8}}));
}

// HF: "first" prepends only to the split at the start of the sequence, so
// not to text after an added token (tokens of "<s>hey" with a WordLevel
// model: first -> '<s>', 'hey'; always -> '<s>', '▁hey').
TEST(MetaspacePreTokenizer, FirstSkipsTextAfterAnAddedToken) {
  for (const auto& [scheme, expected] : {std::pair{"first", "hey"}, std::pair{"always", "\u2581hey"}}) {
    const auto p = make_pre_tokenizer(
        std::string(R"({"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": ")") + scheme + "\"}");
    std::vector<Split> splits;
    splits.push_back(Split{NormalizedString("<s>"), {Token{1, 0, 3}}, true});
    splits.push_back(Split{NormalizedString("hey", 3), {}, false});
    p->pre_tokenize(splits);
    EXPECT_EQ(pieces_of(splits), (std::vector<Piece>{{"<s>", 0, 3}, {expected, 3, 6}})) << scheme;
  }
}

TEST(MetaspacePreTokenizer, RejectsBadJson) {
  // HF: "add_prefix_space does not match declared prepend_scheme".
  EXPECT_THROW(make_pre_tokenizer(R"({"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": false})"),
               Error);
  EXPECT_THROW(
      make_pre_tokenizer(
          R"({"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": false, "prepend_scheme": "first"})"),
      Error);
  EXPECT_THROW(make_pre_tokenizer(R"({"type": "Metaspace", "replacement": "ab"})"), Error);
  EXPECT_THROW(make_pre_tokenizer(R"({"type": "Metaspace"})"), Error);
  EXPECT_THROW(make_pre_tokenizer(R"({"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "First"})"),
               Error);
}

}  // namespace
}  // namespace sieve::tokenizer
