#include <gtest/gtest.h>

#include "sieve/error.hpp"
#include "tokenizer/normalizers/normalizer_test_util.hpp"

namespace sieve::tokenizer::normalizer_testing {
namespace {

// Expected texts and offsets (one range per normalized character) come from
// Hugging Face tokenizers 0.23.3.

TEST(NormalizerSequence, AppliesInOrder) {
  const auto normalizer = make(
      R"({"type": "Sequence", "normalizers": [{"type": "NFKD"}, {"type": "StripAccents"}, {"type": "Lowercase"}]})");
  expect_normalized(*normalizer, "\u01C4\u00E9", "dze", {{0, 2}, {0, 2}, {2, 4}});
  expect_normalized(*normalizer, "Cr\u00E8me Br\u00FBl\u00E9e \uFB01", "creme brulee fi",
                    {{0, 1},
                     {1, 2},
                     {2, 4},
                     {4, 5},
                     {5, 6},
                     {6, 7},
                     {7, 8},
                     {8, 9},
                     {9, 11},
                     {11, 12},
                     {12, 14},
                     {14, 15},
                     {15, 16},
                     {16, 19},
                     {16, 19}});
}

TEST(NormalizerSequence, SentencePieceStyle) {
  const auto normalizer = make(
      R"({"type": "Sequence", "normalizers": [{"type": "Strip", "strip_left": true, "strip_right": true}, {"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]})");
  expect_normalized(
      *normalizer, "  Hello world  ", "\u2581Hello\u2581world",
      {{2, 3}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 8}, {8, 9}, {9, 10}, {10, 11}, {11, 12}, {12, 13}});
}

TEST(NormalizerSequence, UnknownChildTypeNamesItsPath) {
  try {
    (void)make(R"({"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Nope"}]})");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/normalizers/1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sieve::tokenizer::normalizer_testing
