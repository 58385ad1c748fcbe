#include <gtest/gtest.h>

#include "tokenizer/normalizers/normalizer_test_util.hpp"

namespace sieve::tokenizer::normalizer_testing {
namespace {

// Expected texts and offsets (one range per normalized character) come from
// Hugging Face tokenizers 0.23.3.

TEST(StripAccentsNormalizer, RemovesMarksOfUnicode9) {
  const auto normalizer = make(R"({"type": "StripAccents"})");
  expect_normalized(*normalizer, "\u0301e\u0301\u0302a", "ea", {{2, 3}, {7, 8}});
  expect_normalized(*normalizer, "e\u0904\u093F\u0903", "e\u0904", {{0, 1}, {1, 4}});
  expect_normalized(*normalizer, "\u1CF2x\U000111C9", "x\U000111C9", {{3, 4}, {4, 8}});
  expect_normalized(*normalizer, "\u00E9", "\u00E9", {{0, 2}});
}

}  // namespace
}  // namespace sieve::tokenizer::normalizer_testing
