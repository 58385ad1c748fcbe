#include <gtest/gtest.h>

#include "tokenizer/pre_tokenizers/bert_pre_tokenizer.hpp"

namespace sieve::tokenizer {
namespace {

std::vector<std::string> pieces(std::string_view text) {
  std::vector<Split> splits;
  splits.push_back(Split{NormalizedString(text), {}, false});
  BertPreTokenizer().pre_tokenize(splits);
  std::vector<std::string> out;
  for (const auto& s : splits) out.push_back(s.text.get());
  return out;
}

TEST(BertPreTokenizer, SplitsOnWhitespaceAndIsolatesPunctuation) {
  EXPECT_EQ(pieces("Hello, world!"), (std::vector<std::string>{"Hello", ",", "world", "!"}));
  EXPECT_EQ(pieces("don't"), (std::vector<std::string>{"don", "'", "t"}));
  EXPECT_EQ(pieces("  a\u3000b\u2003c  "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(pieces("$5+3=8"), (std::vector<std::string>{"$", "5", "+", "3", "=", "8"}));
  EXPECT_EQ(pieces("«quote»"), (std::vector<std::string>{"«", "quote", "»"}));
  EXPECT_TRUE(pieces("").empty());
  EXPECT_TRUE(pieces(" \t\n ").empty());
}

TEST(BertPreTokenizer, PiecesKeepOriginalOffsets) {
  const std::string text = "ab, cd";
  std::vector<Split> splits;
  splits.push_back(Split{NormalizedString(text), {}, false});
  BertPreTokenizer().pre_tokenize(splits);
  ASSERT_EQ(splits.size(), 3U);
  for (const auto& s : splits) {
    const auto [begin, end] = s.text.original_offsets(0, s.text.size());
    EXPECT_EQ(text.substr(begin, end - begin), s.text.get());
  }
}

TEST(BertPreTokenizer, AlreadyTokenizedSplitsPassThrough) {
  std::vector<Split> splits;
  splits.push_back(Split{NormalizedString("[CLS] x"), {Token{1, 0, 7}}, true});
  BertPreTokenizer().pre_tokenize(splits);
  ASSERT_EQ(splits.size(), 1U);
  EXPECT_TRUE(splits[0].tokenized);
}

}  // namespace
}  // namespace sieve::tokenizer
