#include <gtest/gtest.h>

#include "tokenizer/models/model_test_support.hpp"
#include "tokenizer/models/wordlevel/wordlevel.hpp"

// Expected tokens come from Hugging Face tokenizers 0.23.3.
namespace sieve::tokenizer {
namespace {

using model_test::tokenize;

std::unique_ptr<Model> wordlevel(const std::string& json) {
  return model_test::from_json_text(&WordLevel::from_json, json);
}

TEST(WordLevelModel, WholePieceOrUnknown) {
  const auto model = wordlevel(R"({"type": "WordLevel", "vocab": {"a": 0, "<unk>": 1}, "unk_token": "<unk>"})");
  EXPECT_EQ(tokenize(*model, "a"), (std::vector<Token>{{0, 0, 1}}));
  EXPECT_EQ(tokenize(*model, "bé"), (std::vector<Token>{{1, 0, 3}}));
  EXPECT_EQ(tokenize(*model, ""), (std::vector<Token>{{1, 0, 0}}));
  EXPECT_EQ(model->vocab_size(), 2U);
  EXPECT_EQ(model->token_to_id("<unk>"), 1U);
  EXPECT_EQ(model->id_to_token(0), "a");
  EXPECT_EQ(model->id_to_token(2), "");
}

TEST(WordLevelModel, UnknownTokenIsRequired) {
  // Hugging Face has no default for "unk_token" here.
  EXPECT_THROW(wordlevel(R"({"vocab": {"a": 0}})"), Error);
  EXPECT_THROW(wordlevel(R"({"vocab": {"a": 0}, "unk_token": null})"), Error);
  const auto model = wordlevel(R"({"vocab": {"a": 0}, "unk_token": "<unk>"})");
  std::vector<Token> tokens;
  EXPECT_THROW(model->tokenize("b", tokens), Error);
}

TEST(WordLevelModel, SparseIds) {
  const auto model = wordlevel(R"({"vocab": {"a": 4000000000, "<unk>": 7}, "unk_token": "<unk>"})");
  EXPECT_EQ(tokenize(*model, "a"), (std::vector<Token>{{4000000000U, 0, 1}}));
  EXPECT_EQ(model->id_to_token(4000000000U), "a");
  EXPECT_EQ(model->id_to_token(7), "<unk>");
  EXPECT_EQ(model->id_to_token(8), "");
}

}  // namespace
}  // namespace sieve::tokenizer
