#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sieve/error.hpp"
#include "support/paths.hpp"
#include "tokenizer/normalizers/normalizer_test_util.hpp"
#include "tokenizer/normalizers/precompiled.hpp"

namespace sieve::tokenizer::normalizer_testing {
namespace {

std::filesystem::path t5_tokenizer() {
  return sieve::testing::source_dir() / "../shared/tokenizers/t5-small/tokenizer.json";
}

// t5-small's normalizer object, parsed once: the file is large.
const nlohmann::json& t5_normalizer_json() {
  static const nlohmann::json node = [] {
    std::ifstream in(t5_tokenizer());
    return nlohmann::json::parse(in).at("normalizer");
  }();
  return node;
}

std::unique_ptr<Normalizer> t5_normalizer() {
  return ComponentRegistry::builtin().normalizers.create(JsonView(t5_normalizer_json(), "t5"), "normalizer");
}

// Expected values come from Hugging Face tokenizers 0.23.3 with t5-small's
// charsmap (SentencePiece's nmt_nfkc rules).
TEST(PrecompiledNormalizer, MatchesHuggingFaceOnT5) {
  if (!std::filesystem::exists(t5_tokenizer())) GTEST_SKIP() << "no shared t5-small tokenizer";
  const auto normalizer = t5_normalizer();
  expect_normalized(*normalizer, "\uFB01x \u2460\u2461", "fix 12", {{0, 3}, {0, 3}, {3, 4}, {4, 5}, {5, 8}, {8, 11}});
  expect_normalized(*normalizer, "\u200Bab", " ab", {{0, 3}, {3, 4}, {4, 5}});
  expect_normalized(*normalizer, "a\001\002bc", "abc", {{0, 1}, {3, 4}, {4, 5}});
  expect_normalized(*normalizer, "\uFF71\uFF9E", "\u30A2\u3099", {{0, 3}, {3, 6}});
  expect_normalized(*normalizer, "\u1100\u1161x", "\u1100\u1161x", {{0, 3}, {3, 6}, {6, 7}});
  expect_normalized(*normalizer, "\U0001F468\u200D\U0001F469 x", "\U0001F468 \U0001F469 x",
                    {{0, 4}, {4, 7}, {7, 11}, {11, 12}, {12, 13}});
  expect_normalized(*normalizer, "\u00C5\uFF21", "\u00C5A", {{0, 2}, {2, 5}});
  expect_normalized(*normalizer, "plain", "plain", {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}});
  expect_normalized(*normalizer, "", "", {});
}

TEST(PrecompiledNormalizer, ReproducesTheQuirksOfTokenizers) {
  if (!std::filesystem::exists(t5_tokenizer())) GTEST_SKIP() << "no shared t5-small tokenizer";
  const auto normalizer = t5_normalizer();
  // A short grapheme is looked up whole, and its shortest mapped prefix
  // replaces all of it: the circumflex is lost.
  expect_normalized(*normalizer, "e\u0301\u0302", "\u00E9", {{0, 1}});
  // "\r\n" is one grapheme, mapped to one space.
  expect_normalized(*normalizer, "\r\nx", " x", {{0, 1}, {2, 3}});
  // A deletion with nothing before it is never consumed, so what follows
  // takes the ranges one character early.
  expect_normalized(*normalizer, "\001ab", "ab", {{0, 1}, {1, 2}});
}

TEST(PrecompiledNormalizer, EmptyMapChangesNothing) {
  const auto normalizer = make(R"({"type": "Precompiled", "precompiled_charsmap": ""})");
  expect_normalized(*normalizer, "\uFB01x", "\uFB01x", {{0, 3}, {3, 4}});
}

TEST(PrecompiledNormalizer, RejectsMalformedMaps) {
  EXPECT_THROW(make(R"({"type": "Precompiled", "precompiled_charsmap": "!!"})"), Error);
  // Three bytes: too short for the trie size.
  EXPECT_THROW(make(R"({"type": "Precompiled", "precompiled_charsmap": "AAAA"})"), Error);
  // A trie size of 4 bytes with none following.
  EXPECT_THROW(make(R"({"type": "Precompiled", "precompiled_charsmap": "BAAAAA=="})"), Error);
}

TEST(PrecompiledNormalizer, LooksUpTheShortestMappedPrefix) {
  if (!std::filesystem::exists(t5_tokenizer())) GTEST_SKIP() << "no shared t5-small tokenizer";
  const auto normalizer = Precompiled::from_json(JsonView(t5_normalizer_json(), "t5"));
  const auto& precompiled = dynamic_cast<const Precompiled&>(*normalizer);
  EXPECT_EQ(precompiled.lookup("\uFB01"), "fi");
  EXPECT_EQ(precompiled.lookup("a"), std::nullopt);
  EXPECT_EQ(precompiled.lookup("e\u0301\u0302"), "\u00E9");
}

}  // namespace
}  // namespace sieve::tokenizer::normalizer_testing
