#include <gtest/gtest.h>

#include "tokenizer/pre_tokenizers/pre_tokenize_test_util.hpp"

namespace sieve::tokenizer {
namespace {

using testing::hf_pieces;
using testing::make_pre_tokenizer;
using testing::pre_tokenize;

// Expected pieces come from Hugging Face tokenizers 0.23.3:
// pre_tokenizers.X(...).pre_tokenize_str(text), character offsets.

TEST(DigitsPreTokenizer, KeepsRunsOfDigits) {
  const auto p = make_pre_tokenizer(R"({"type": "Digits", "individual_digits": false})");
  EXPECT_EQ(pre_tokenize(*p, "Hey 123 friend!"),
            hf_pieces("Hey 123 friend!", {{"Hey ", 0, 4}, {"123", 4, 7}, {" friend!", 7, 15}}));
  EXPECT_EQ(pre_tokenize(*p, "٣٤5"), hf_pieces("٣٤5", {{"٣٤5", 0, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "½ and ²"), hf_pieces("½ and ²", {{"½", 0, 1}, {" and ", 1, 6}, {"²", 6, 7}}));
  EXPECT_EQ(pre_tokenize(*p, "1,000.50"),
            hf_pieces("1,000.50", {{"1", 0, 1}, {",", 1, 2}, {"000", 2, 5}, {".", 5, 6}, {"50", 6, 8}}));
  EXPECT_EQ(pre_tokenize(*p, "123"), hf_pieces("123", {{"123", 0, 3}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
  EXPECT_EQ(pre_tokenize(*p, "Ⅷ and 〇"), hf_pieces("Ⅷ and 〇", {{"Ⅷ", 0, 1}, {" and ", 1, 6}, {"〇", 6, 7}}));
}

TEST(DigitsPreTokenizer, IndividualDigits) {
  const auto p = make_pre_tokenizer(R"({"type": "Digits", "individual_digits": true})");
  EXPECT_EQ(pre_tokenize(*p, "Hey 123 friend!"),
            hf_pieces("Hey 123 friend!", {{"Hey ", 0, 4}, {"1", 4, 5}, {"2", 5, 6}, {"3", 6, 7}, {" friend!", 7, 15}}));
  EXPECT_EQ(pre_tokenize(*p, "٣٤5"), hf_pieces("٣٤5", {{"٣", 0, 1}, {"٤", 1, 2}, {"5", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, "½ and ²"), hf_pieces("½ and ²", {{"½", 0, 1}, {" and ", 1, 6}, {"²", 6, 7}}));
  EXPECT_EQ(
      pre_tokenize(*p, "1,000.50"),
      hf_pieces(
          "1,000.50",
          {{"1", 0, 1}, {",", 1, 2}, {"0", 2, 3}, {"0", 3, 4}, {"0", 4, 5}, {".", 5, 6}, {"5", 6, 7}, {"0", 7, 8}}));
  EXPECT_EQ(pre_tokenize(*p, "123"), hf_pieces("123", {{"1", 0, 1}, {"2", 1, 2}, {"3", 2, 3}}));
  EXPECT_EQ(pre_tokenize(*p, ""), hf_pieces("", {}));
  EXPECT_EQ(pre_tokenize(*p, "Ⅷ and 〇"), hf_pieces("Ⅷ and 〇", {{"Ⅷ", 0, 1}, {" and ", 1, 6}, {"〇", 6, 7}}));
}

}  // namespace
}  // namespace sieve::tokenizer
