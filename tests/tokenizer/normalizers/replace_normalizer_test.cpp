#include <gtest/gtest.h>

#include "sieve/error.hpp"
#include "tokenizer/normalizers/normalizer_test_util.hpp"

namespace sieve::tokenizer::normalizer_testing {
namespace {

// Expected texts and offsets (one range per normalized character) come from
// Hugging Face tokenizers 0.23.3.

TEST(ReplaceNormalizer, StringGrowsAndTakesTheLastMatchedRange) {
  const auto normalizer = make(R"({"type": "Replace", "pattern": {"String": "ab"}, "content": "XYZ"})");
  expect_normalized(*normalizer, "cabd", "cXYZd", {{0, 1}, {2, 3}, {2, 3}, {2, 3}, {3, 4}});
  expect_normalized(*normalizer, "abab", "XYZXYZ", {{1, 2}, {1, 2}, {1, 2}, {3, 4}, {3, 4}, {3, 4}});
  expect_normalized(*normalizer, "\u00E9ab", "\u00E9XYZ", {{0, 2}, {3, 4}, {3, 4}, {3, 4}});
}

TEST(ReplaceNormalizer, StringDeletes) {
  const auto normalizer = make(R"({"type": "Replace", "pattern": {"String": "é"}, "content": ""})");
  expect_normalized(*normalizer, "c\u00E9d\u00E9", "cd", {{0, 1}, {3, 4}});
}

TEST(ReplaceNormalizer, RegexWithEmptyMatches) {
  const auto normalizer = make(R"({"type": "Replace", "pattern": {"Regex": "a*"}, "content": "X"})");
  expect_normalized(*normalizer, "baac", "XbXcX", {{0, 0}, {0, 1}, {2, 3}, {3, 4}, {3, 4}});
  expect_normalized(*normalizer, "", "", {});
}

TEST(ReplaceNormalizer, EmptyStringMatchesBetweenCharacters) {
  const auto normalizer = make(R"({"type": "Replace", "pattern": {"String": ""}, "content": "_"})");
  expect_normalized(*normalizer, "ab", "_a_b_", {{0, 0}, {0, 1}, {0, 1}, {1, 2}, {1, 2}});
}

TEST(ReplaceNormalizer, WhitespaceRunsAsInClip) {
  const auto normalizer = make(R"({"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "})");
  expect_normalized(*normalizer, "a \011\012 b  c", "a b c", {{0, 1}, {4, 5}, {5, 6}, {7, 8}, {8, 9}});
  expect_normalized(*normalizer, "$1", "$1", {{0, 1}, {1, 2}});
}

TEST(ReplaceNormalizer, RejectsAPatternOfNoKnownKind) {
  EXPECT_THROW(make(R"({"type": "Replace", "pattern": {"Glob": "*"}, "content": ""})"), Error);
  EXPECT_THROW(make(R"({"type": "Replace", "pattern": {"Regex": "("}, "content": ""})"), Error);
}

}  // namespace
}  // namespace sieve::tokenizer::normalizer_testing
