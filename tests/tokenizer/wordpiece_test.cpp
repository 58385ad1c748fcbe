#include <gtest/gtest.h>

#include "tokenizer/models/wordpiece/wordpiece.hpp"

namespace sieve::tokenizer {
namespace {

WordPiece make_model(std::size_t max_chars = 100) {
  Vocab vocab{{"[UNK]", 0}, {"un", 1}, {"##aff", 2}, {"##able", 3}, {"a", 4}, {"##a", 5}, {"é", 6}, {"##é", 7}};
  WordPiece::Options options;
  options.max_input_chars_per_word = max_chars;
  return WordPiece(std::move(vocab), options);
}

std::vector<std::uint32_t> ids_of(const WordPiece& model, std::string_view word) {
  std::vector<Token> tokens;
  model.tokenize(word, tokens);
  std::vector<std::uint32_t> ids;
  for (const auto& t : tokens) ids.push_back(t.id);
  return ids;
}

TEST(WordPiece, GreedyLongestMatchFirst) {
  const auto model = make_model();
  EXPECT_EQ(ids_of(model, "unaffable"), (std::vector<std::uint32_t>{1, 2, 3}));
  EXPECT_EQ(ids_of(model, "aaa"), (std::vector<std::uint32_t>{4, 5, 5}));
}

TEST(WordPiece, OffsetsSliceTheWord) {
  const auto model = make_model();
  std::vector<Token> tokens;
  const std::string word = "unaffable";
  model.tokenize(word, tokens);
  ASSERT_EQ(tokens.size(), 3U);
  EXPECT_EQ(word.substr(tokens[0].begin, tokens[0].end - tokens[0].begin), "un");
  EXPECT_EQ(word.substr(tokens[1].begin, tokens[1].end - tokens[1].begin), "aff");
  EXPECT_EQ(word.substr(tokens[2].begin, tokens[2].end - tokens[2].begin), "able");
}

TEST(WordPiece, UncoverableWordIsOneUnknown) {
  const auto model = make_model();
  std::vector<Token> tokens;
  model.tokenize("unaffx", tokens);
  ASSERT_EQ(tokens.size(), 1U);
  EXPECT_EQ(tokens[0].id, 0U);
  EXPECT_EQ(tokens[0].begin, 0U);
  EXPECT_EQ(tokens[0].end, 6U);
}

TEST(WordPiece, MultibyteCharactersAreNeverCut) {
  const auto model = make_model();
  EXPECT_EQ(ids_of(model, "éé"), (std::vector<std::uint32_t>{6, 7}));
}

TEST(WordPiece, LongWordsBecomeUnknownByCharacterCount) {
  const auto model = make_model(3);
  EXPECT_EQ(ids_of(model, "aaa"), (std::vector<std::uint32_t>{4, 5, 5}));
  EXPECT_EQ(ids_of(model, "aaaa"), (std::vector<std::uint32_t>{0}));
  // Three characters, six bytes: the limit counts characters.
  EXPECT_EQ(ids_of(model, "ééé"), (std::vector<std::uint32_t>{6, 7, 7}));
}

TEST(WordPiece, MissingUnknownTokenIsAnError) {
  WordPiece model(Vocab{{"a", 0}}, WordPiece::Options{});
  std::vector<Token> tokens;
  EXPECT_THROW(model.tokenize("b", tokens), Error);
}

}  // namespace
}  // namespace sieve::tokenizer
