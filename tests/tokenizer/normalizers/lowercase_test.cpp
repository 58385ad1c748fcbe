#include <gtest/gtest.h>

#include "tokenizer/normalizers/normalizer_test_util.hpp"

namespace sieve::tokenizer::normalizer_testing {
namespace {

// Expected texts and offsets (one range per normalized character) come from
// Hugging Face tokenizers 0.23.3.

TEST(LowercaseNormalizer, FullMappingKeepsTheSourceRange) {
  const auto normalizer = make(R"({"type": "Lowercase"})");
  expect_normalized(*normalizer, "A\u0130B", "ai\u0307b", {{0, 1}, {1, 3}, {1, 3}, {3, 4}});
  expect_normalized(*normalizer, "\u03A3\u0391\u03A3", "\u03C3\u03B1\u03C3", {{0, 2}, {2, 4}, {4, 6}});
  expect_normalized(*normalizer, "\u01C5x", "\u01C6x", {{0, 2}, {2, 3}});
  expect_normalized(*normalizer, "abc", "abc", {{0, 1}, {1, 2}, {2, 3}});
}

}  // namespace
}  // namespace sieve::tokenizer::normalizer_testing
