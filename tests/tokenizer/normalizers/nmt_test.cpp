#include <gtest/gtest.h>

#include "tokenizer/normalizers/normalizer_test_util.hpp"

namespace sieve::tokenizer::normalizer_testing {
namespace {

// Expected texts and offsets (one range per normalized character) come from
// Hugging Face tokenizers 0.23.3.

TEST(NmtNormalizer, DropsControlsAndMapsSpaces) {
  const auto normalizer = make(R"({"type": "Nmt"})");
  expect_normalized(*normalizer, "a\001b\u200Bc\uFEFF\177", "ab c ", {{0, 1}, {2, 3}, {3, 6}, {6, 7}, {7, 10}});
  expect_normalized(*normalizer, "\011\u2581x", "  x", {{0, 1}, {1, 4}, {4, 5}});
}

}  // namespace
}  // namespace sieve::tokenizer::normalizer_testing
