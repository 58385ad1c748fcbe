#include <gtest/gtest.h>

#include "tokenizer/normalizers/normalizer_test_util.hpp"

namespace sieve::tokenizer::normalizer_testing {
namespace {

// Expected texts and offsets (one range per normalized character) come from
// Hugging Face tokenizers 0.23.3.

TEST(PrependNormalizer, TakesTheFirstCharacterRange) {
  const auto normalizer = make(R"({"type": "Prepend", "prepend": "▁"})");
  expect_normalized(*normalizer, "h\u00E9llo", "\u2581h\u00E9llo", {{0, 1}, {0, 1}, {1, 3}, {3, 4}, {4, 5}, {5, 6}});
  expect_normalized(*normalizer, " ab", "\u2581 ab", {{0, 1}, {0, 1}, {1, 2}, {2, 3}});
  expect_normalized(*normalizer, "", "", {});
}

TEST(PrependNormalizer, EmptyPrefixLeavesTheFirstCharacterAnEmptyRange) {
  const auto normalizer = make(R"({"type": "Prepend", "prepend": ""})");
  expect_normalized(*normalizer, "ab", "ab", {{0, 0}, {1, 2}});
}

}  // namespace
}  // namespace sieve::tokenizer::normalizer_testing
