#include <gtest/gtest.h>

#include "tokenizer/normalizers/normalizer_test_util.hpp"

namespace sieve::tokenizer::normalizer_testing {
namespace {

// Expected texts and offsets (one range per normalized character) come from
// Hugging Face tokenizers 0.23.3.

TEST(ByteLevelNormalizer, MapsEveryByte) {
  const auto normalizer = make(R"({"type": "ByteLevel"})");
  expect_normalized(*normalizer, "a \u00E9", "a\u0120\u00C3\u00A9", {{0, 1}, {1, 2}, {2, 4}, {2, 4}});
  expect_normalized(*normalizer, "\u6211!", "\u00E6\u012A\u0133!", {{0, 3}, {0, 3}, {0, 3}, {3, 4}});
}

}  // namespace
}  // namespace sieve::tokenizer::normalizer_testing
