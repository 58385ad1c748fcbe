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

TEST(ByteLevelPreTokenizer, NoPrefixSpaceRegex) {
  const auto p = make_pre_tokenizer(
      R"({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true})");
  EXPECT_EQ(pre_tokenize(*p, "Hello world"), hf_pieces("Hello world", {{"Hello", 0, 5}, {"Ġworld", 5, 11}}));
  EXPECT_EQ(pre_tokenize(*p, "Hello  world  "),
            hf_pieces("Hello  world  ", {{"Hello", 0, 5}, {"Ġ", 5, 6}, {"Ġworld", 6, 12}, {"ĠĠ", 12, 14}}));
  EXPECT_EQ(pre_tokenize(*p, " leading"), hf_pieces(" leading", {{"Ġleading", 0, 8}}));
  EXPECT_EQ(pre_tokenize(*p, "I'm don't we'll they've"), hf_pieces("I'm don't we'll they've", {{"I", 0, 1},
                                                                                               {"'m", 1, 3},
                                                                                               {"Ġdon", 3, 7},
                                                                                               {"'t", 7, 9},
                                                                                               {"Ġwe", 9, 12},
                                                                                               {"'ll", 12, 15},
                                                                                               {"Ġthey", 15, 20},
                                                                                               {"'ve", 20, 23}}));
  EXPECT_EQ(pre_tokenize(*p, "naïve café"), hf_pieces("naïve café", {{"naÃ¯ve", 0, 5}, {"ĠcafÃ©", 5, 10}}));
  EXPECT_EQ(pre_tokenize(*p, "日本語"), hf_pieces("日本語", {{"æĹ¥æľ¬èªŀ", 0, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "😀 emoji"), hf_pieces("😀 emoji", {{"ðŁĺĢ", 0, 1}, {"Ġemoji", 1, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "a\n\nb"), hf_pieces("a\n\nb", {{"a", 0, 1}, {"Ċ", 1, 2}, {"Ċ", 2, 3}, {"b", 3, 4}}));
  EXPECT_EQ(pre_tokenize(*p, "tab\there"), hf_pieces("tab\there", {{"tab", 0, 3}, {"ĉ", 3, 4}, {"here", 4, 8}}));
  EXPECT_EQ(pre_tokenize(*p, "  "), hf_pieces("  ", {{"ĠĠ", 0, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "123 4567"), hf_pieces("123 4567", {{"123", 0, 3}, {"Ġ4567", 3, 8}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
  EXPECT_EQ(pre_tokenize(*p, "x\u00A0y"), hf_pieces("x\u00A0y", {{"x", 0, 1}, {"Âł", 1, 2}, {"y", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "It's 's"), hf_pieces("It's 's", {{"It", 0, 2}, {"'s", 2, 4}, {"Ġ'", 4, 6}, {"s", 6, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "é\u0301 \u200B"),
            hf_pieces("é\u0301 \u200B", {{"Ã©", 0, 1}, {"Ìģ", 1, 2}, {"ĠâĢĭ", 2, 4}}));
}

TEST(ByteLevelPreTokenizer, NoPrefixSpaceNoRegex) {
  const auto p = make_pre_tokenizer(
      R"({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false})");
  EXPECT_EQ(pre_tokenize(*p, "Hello world"), hf_pieces("Hello world", {{"HelloĠworld", 0, 11}}));
  EXPECT_EQ(pre_tokenize(*p, "Hello  world  "), hf_pieces("Hello  world  ", {{"HelloĠĠworldĠĠ", 0, 14}}));
  EXPECT_EQ(pre_tokenize(*p, " leading"), hf_pieces(" leading", {{"Ġleading", 0, 8}}));
  EXPECT_EQ(pre_tokenize(*p, "I'm don't we'll they've"),
            hf_pieces("I'm don't we'll they've", {{"I'mĠdon'tĠwe'llĠthey've", 0, 23}}));
  EXPECT_EQ(pre_tokenize(*p, "日本語"), hf_pieces("日本語", {{"æĹ¥æľ¬èªŀ", 0, 3}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
}

TEST(ByteLevelPreTokenizer, AddPrefixSpaceRegex) {
  const auto p =
      make_pre_tokenizer(R"({"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true})");
  EXPECT_EQ(pre_tokenize(*p, "Hello world"), hf_pieces("Hello world", {{"ĠHello", 0, 5}, {"Ġworld", 5, 11}}));
  EXPECT_EQ(pre_tokenize(*p, "Hello  world  "),
            hf_pieces("Hello  world  ", {{"ĠHello", 0, 5}, {"Ġ", 5, 6}, {"Ġworld", 6, 12}, {"ĠĠ", 12, 14}}));
  EXPECT_EQ(pre_tokenize(*p, " leading"), hf_pieces(" leading", {{"Ġleading", 0, 8}}));
  EXPECT_EQ(pre_tokenize(*p, "I'm don't we'll they've"), hf_pieces("I'm don't we'll they've", {{"ĠI", 0, 1},
                                                                                               {"'m", 1, 3},
                                                                                               {"Ġdon", 3, 7},
                                                                                               {"'t", 7, 9},
                                                                                               {"Ġwe", 9, 12},
                                                                                               {"'ll", 12, 15},
                                                                                               {"Ġthey", 15, 20},
                                                                                               {"'ve", 20, 23}}));
  EXPECT_EQ(pre_tokenize(*p, "naïve café"), hf_pieces("naïve café", {{"ĠnaÃ¯ve", 0, 5}, {"ĠcafÃ©", 5, 10}}));
  EXPECT_EQ(pre_tokenize(*p, "日本語"), hf_pieces("日本語", {{"ĠæĹ¥æľ¬èªŀ", 0, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "😀 emoji"), hf_pieces("😀 emoji", {{"ĠðŁĺĢ", 0, 1}, {"Ġemoji", 1, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "a\n\nb"), hf_pieces("a\n\nb", {{"Ġa", 0, 1}, {"Ċ", 1, 2}, {"Ċ", 2, 3}, {"b", 3, 4}}));
  EXPECT_EQ(pre_tokenize(*p, "tab\there"), hf_pieces("tab\there", {{"Ġtab", 0, 3}, {"ĉ", 3, 4}, {"here", 4, 8}}));
  EXPECT_EQ(pre_tokenize(*p, "  "), hf_pieces("  ", {{"ĠĠ", 0, 2}}));
  EXPECT_EQ(pre_tokenize(*p, "123 4567"), hf_pieces("123 4567", {{"Ġ123", 0, 3}, {"Ġ4567", 3, 8}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
  EXPECT_EQ(pre_tokenize(*p, "x\u00A0y"), hf_pieces("x\u00A0y", {{"Ġx", 0, 1}, {"Âł", 1, 2}, {"y", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "It's 's"),
            hf_pieces("It's 's", {{"ĠIt", 0, 2}, {"'s", 2, 4}, {"Ġ'", 4, 6}, {"s", 6, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "é\u0301 \u200B"),
            hf_pieces("é\u0301 \u200B", {{"ĠÃ©", 0, 1}, {"Ìģ", 1, 2}, {"ĠâĢĭ", 2, 4}}));
}

TEST(ByteLevelPreTokenizer, AddPrefixSpaceNoRegex) {
  const auto p = make_pre_tokenizer(
      R"({"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": false})");
  EXPECT_EQ(pre_tokenize(*p, "Hello world"), hf_pieces("Hello world", {{"ĠHelloĠworld", 0, 11}}));
  EXPECT_EQ(pre_tokenize(*p, "Hello  world  "), hf_pieces("Hello  world  ", {{"ĠHelloĠĠworldĠĠ", 0, 14}}));
  EXPECT_EQ(pre_tokenize(*p, " leading"), hf_pieces(" leading", {{"Ġleading", 0, 8}}));
  EXPECT_EQ(pre_tokenize(*p, "I'm don't we'll they've"),
            hf_pieces("I'm don't we'll they've", {{"ĠI'mĠdon'tĠwe'llĠthey've", 0, 23}}));
  EXPECT_EQ(pre_tokenize(*p, "日本語"), hf_pieces("日本語", {{"ĠæĹ¥æľ¬èªŀ", 0, 3}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
}

// Every character standing for a byte maps back to the whole character the
// byte came from, so a token holding part of a multi-byte character gets
// its full range (HF, BPE with no merges: "a😀b" -> ('ð', (1, 2)), ('Ł', (1, 2)), ...).
TEST(ByteLevelPreTokenizer, EachByteMapsToItsWholeCharacter) {
  const auto p = make_pre_tokenizer(R"({"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false})");
  std::vector<Split> splits;
  splits.push_back(Split{NormalizedString("a\U0001F600b"), {}, false});
  p->pre_tokenize(splits);
  ASSERT_EQ(splits.size(), 3U);
  const NormalizedString& emoji = splits[1].text;
  EXPECT_EQ(emoji.get(), "\u00F0\u0141\u013A\u0122");
  for (std::size_t pos = 0; pos < emoji.size(); pos += 2) {
    EXPECT_EQ(emoji.original_offsets(pos, pos + 2), (Offsets{1, 5})) << pos;
  }
  // The added space takes the range of the first character.
  const NormalizedString& first = splits[0].text;
  EXPECT_EQ(first.get(), "\u0120a");
  EXPECT_EQ(first.original_offsets(0, 2), (Offsets{0, 1}));
}

TEST(ByteLevelPreTokenizer, PrefixSpaceGoesOnEverySplit) {
  const auto p = make_pre_tokenizer(R"({"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true})");
  std::vector<Split> splits;
  splits.push_back(Split{NormalizedString("hi"), {}, false});
  splits.push_back(Split{NormalizedString("<s>", 2), {Token{0, 0, 3}}, true});
  splits.push_back(Split{NormalizedString("\u00E9t\u00E9", 5), {}, false});
  p->pre_tokenize(splits);
  EXPECT_EQ(pieces_of(splits),
            (std::vector<Piece>{{"\u0120hi", 0, 2}, {"<s>", 2, 5}, {"\u0120\u00C3\u00A9t\u00C3\u00A9", 5, 10}}));
  EXPECT_TRUE(splits[1].tokenized);
}

TEST(ByteLevelPreTokenizer, RealTokenizerConfigsLoad) {
  for (const char* json :
       {R"({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true})",
        R"({"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true})"}) {
    EXPECT_NO_THROW(make_pre_tokenizer(json)) << json;
  }
}

}  // namespace
}  // namespace sieve::tokenizer
