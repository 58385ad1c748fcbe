#include <gtest/gtest.h>

#include "tokenizer/normalizers/normalizer_test_util.hpp"

namespace sieve::tokenizer::normalizer_testing {
namespace {

// Expected texts and offsets (one range per normalized character) come from
// Hugging Face tokenizers 0.23.3.

TEST(NfdNormalizer, DecomposesAndReordersMarksWithTheirChanges) {
  const auto normalizer = make(R"({"type": "NFD"})");
  expect_normalized(*normalizer, "\u00C5b\uAC00", "A\u030Ab\u1100\u1161", {{0, 2}, {0, 2}, {2, 3}, {3, 6}, {3, 6}});
  expect_normalized(*normalizer, "\u01ED\u0323", "o\u0328\u0323\u0304", {{0, 2}, {0, 2}, {2, 4}, {2, 4}});
  expect_normalized(*normalizer, "e\u0302\u0323x", "e\u0323\u0302x", {{0, 1}, {1, 3}, {3, 5}, {5, 6}});
  expect_normalized(*normalizer, "\uFB01", "\uFB01", {{0, 3}});
  expect_normalized(*normalizer, "abc", "abc", {{0, 1}, {1, 2}, {2, 3}});
  expect_normalized(*normalizer, "", "", {});
}

TEST(NfkdNormalizer, DecomposesCompatibilityCharacters) {
  const auto normalizer = make(R"({"type": "NFKD"})");
  expect_normalized(*normalizer, "\uFB01\u2460", "fi1", {{0, 3}, {0, 3}, {3, 6}});
  expect_normalized(*normalizer, "\u00BD\u33CF", "1\u20442kt", {{0, 2}, {0, 2}, {0, 2}, {2, 5}, {2, 5}});
  expect_normalized(*normalizer, "\uFDFA",
                    "\u0635\u0644\u0649 \u0627\u0644\u0644\u0647 \u0639\u0644\u064A\u0647 \u0648\u0633\u0644\u0645",
                    {{0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3},
                     {0, 3}});
}

TEST(NfcNormalizer, ComposedCharactersKeepOnlyTheFirstSourceRange) {
  const auto normalizer = make(R"({"type": "NFC"})");
  expect_normalized(*normalizer, "e\u0301a", "\u00E9a", {{0, 1}, {3, 4}});
  expect_normalized(*normalizer, "\u1100\u1161\u11A8x", "\uAC01x", {{0, 3}, {9, 10}});
  expect_normalized(*normalizer, "\u01ED\u0323", "\u01ED\u0323", {{0, 2}, {2, 4}});
  expect_normalized(*normalizer, "o\u0323\u0302", "\u1ED9", {{0, 1}});
  expect_normalized(*normalizer, "\u2ADC", "\u2ADD\u0338", {{0, 3}, {0, 3}});
  expect_normalized(*normalizer, "A\u030A\u0301", "\u01FA", {{0, 1}});
  expect_normalized(*normalizer, "\u00E9", "\u00E9", {{0, 2}});
}

TEST(NfkcNormalizer, MapsLigaturesAndWidths) {
  const auto normalizer = make(R"({"type": "NFKC"})");
  expect_normalized(*normalizer, "\uFB01x", "fix", {{0, 3}, {0, 3}, {3, 4}});
  expect_normalized(*normalizer, "\u338F", "kg", {{0, 3}, {0, 3}});
  expect_normalized(*normalizer, "\uFF46\uFF55\uFF4C\uFF4C", "full", {{0, 3}, {3, 6}, {6, 9}, {9, 12}});
  expect_normalized(*normalizer, "\u1E9B\u0323", "\u1E69", {{0, 3}});
}

TEST(UnicodeFormsNormalizer, CharactersNewerThanUnicode9AreLeftAlone) {
  const auto normalizer = make(R"({"type": "NFKD"})");
  expect_normalized(*normalizer, "\u32FF", "\u32FF", {{0, 3}});
  expect_normalized(*normalizer, "\U00011938", "\U00011938", {{0, 4}});
  expect_normalized(*normalizer, "a\u0301\u07FD", "a\u0301\u07FD", {{0, 1}, {1, 3}, {3, 5}});
}

}  // namespace
}  // namespace sieve::tokenizer::normalizer_testing
