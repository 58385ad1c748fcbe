#include <gtest/gtest.h>

#include "sieve/error.hpp"
#include "tokenizer/normalizers/normalizer_test_util.hpp"

namespace sieve::tokenizer::normalizer_testing {
namespace {

// Expected texts and offsets (one range per normalized character) come from
// Hugging Face tokenizers 0.23.3.

TEST(StripNormalizer, BothSides) {
  const auto normalizer = make(R"({"type": "Strip", "strip_left": true, "strip_right": true})");
  expect_normalized(*normalizer, " \u3000a b\u00A0 ", "a b", {{4, 5}, {5, 6}, {6, 7}});
  expect_normalized(*normalizer, "   ", "", {});
  expect_normalized(*normalizer, "ab", "ab", {{0, 1}, {1, 2}});
}

TEST(StripNormalizer, LeftOnly) {
  const auto normalizer = make(R"({"type": "Strip", "strip_left": true, "strip_right": false})");
  expect_normalized(*normalizer, " \u3000a b\u00A0 ", "a b\u00A0 ", {{4, 5}, {5, 6}, {6, 7}, {7, 9}, {9, 10}});
  expect_normalized(*normalizer, "   ", "", {});
}

TEST(StripNormalizer, RightOnly) {
  const auto normalizer = make(R"({"type": "Strip", "strip_left": false, "strip_right": true})");
  expect_normalized(*normalizer, " a b\u0085\u2029 ", " a b", {{0, 1}, {1, 2}, {2, 3}, {3, 4}});
  expect_normalized(*normalizer, "   ", "", {});
}

TEST(StripNormalizer, BothFlagsAreRequired) {
  EXPECT_THROW(make(R"({"type": "Strip", "strip_left": true})"), Error);
}

}  // namespace
}  // namespace sieve::tokenizer::normalizer_testing
