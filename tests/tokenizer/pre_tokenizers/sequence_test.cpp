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

TEST(SequencePreTokenizer, WhitespaceSplitThenDigits) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Digits", "individual_digits": true}]})");
  EXPECT_EQ(pre_tokenize(*p, "call 911 now"),
            hf_pieces("call 911 now", {{"call", 0, 4}, {"9", 5, 6}, {"1", 6, 7}, {"1", 7, 8}, {"now", 9, 12}}));
  EXPECT_EQ(pre_tokenize(*p, "a1b22"),
            hf_pieces("a1b22", {{"a", 0, 1}, {"1", 1, 2}, {"b", 2, 3}, {"2", 3, 4}, {"2", 4, 5}}));
}

TEST(SequencePreTokenizer, PunctuationThenWhitespace) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Sequence", "pretokenizers": [{"type": "Punctuation", "behavior": "Isolated"}, {"type": "Whitespace"}]})");
  EXPECT_EQ(pre_tokenize(*p, "Hi, there! ok?"),
            hf_pieces("Hi, there! ok?",
                      {{"Hi", 0, 2}, {",", 2, 3}, {"there", 4, 9}, {"!", 9, 10}, {"ok", 11, 13}, {"?", 13, 14}}));
}

TEST(SequencePreTokenizer, Empty) {
  const auto p = make_pre_tokenizer(R"({"type": "Sequence", "pretokenizers": []})");
  EXPECT_EQ(pre_tokenize(*p, "a b"), hf_pieces("a b", {{"a b", 0, 3}}));
}

TEST(SequencePreTokenizer, Clip) {
  const auto p = make_pre_tokenizer(
      R"({"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "<\\|startoftext\\|>|<\\|endoftext\\|>|'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+"}, "behavior": "Removed", "invert": true}, {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true}]})");
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
  EXPECT_EQ(pre_tokenize(*p, "café 日本"), hf_pieces("café 日本", {{"cafÃ©", 0, 4}, {"æĹ¥æľ¬", 5, 7}}));
}

TEST(SequencePreTokenizer, UnknownChildIsAnError) {
  try {
    make_pre_tokenizer(R"({"type": "Sequence", "pretokenizers": [{"type": "Whitespace"}, {"type": "Nope"}]})");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("Nope"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_pre_tokenizer(R"({"type": "Sequence"})"), Error);
}

}  // namespace
}  // namespace sieve::tokenizer
