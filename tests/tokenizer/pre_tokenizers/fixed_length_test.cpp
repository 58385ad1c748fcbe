#include <gtest/gtest.h>

#include "sieve/error.hpp"

#include "tokenizer/pre_tokenizers/pre_tokenize_test_util.hpp"

namespace sieve::tokenizer {
namespace {

using testing::hf_pieces;
using testing::make_pre_tokenizer;
using testing::pre_tokenize;

// Expected pieces come from Hugging Face tokenizers 0.23.3:
// pre_tokenizers.FixedLength(length=3).pre_tokenize_str(text), character offsets.

TEST(FixedLengthPreTokenizer, CutsEveryLengthCharacters) {
  const auto p = make_pre_tokenizer(R"({"type": "FixedLength", "length": 3})");
  EXPECT_EQ(pre_tokenize(*p, "abcdefgh"), hf_pieces("abcdefgh", {{"abc", 0, 3}, {"def", 3, 6}, {"gh", 6, 8}}));
  EXPECT_EQ(pre_tokenize(*p, "ab"), hf_pieces("ab", {{"ab", 0, 2}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
  // Code points, not bytes and not graphemes.
  EXPECT_EQ(pre_tokenize(*p, "héllo wörld"),
            hf_pieces("héllo wörld", {{"hél", 0, 3}, {"lo ", 3, 6}, {"wör", 6, 9}, {"ld", 9, 11}}));
  EXPECT_EQ(pre_tokenize(*p, "a\u0301bcd"), hf_pieces("a\u0301bcd", {{"a\u0301b", 0, 3}, {"cd", 3, 5}}));
}

TEST(FixedLengthPreTokenizer, LengthDefaultsToFiveAndZeroIsRefused) {
  const auto p = make_pre_tokenizer(R"({"type": "FixedLength"})");
  EXPECT_EQ(pre_tokenize(*p, "abcdefg"), hf_pieces("abcdefg", {{"abcde", 0, 5}, {"fg", 5, 7}}));
  // Hugging Face panics on it when encoding: "chunk size must be non-zero".
  EXPECT_THROW(make_pre_tokenizer(R"({"type": "FixedLength", "length": 0})"), Error);
}

}  // namespace
}  // namespace sieve::tokenizer
