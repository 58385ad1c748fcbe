#include <gtest/gtest.h>

#include "tokenizer/normalizers/bert_normalizer.hpp"

namespace sieve::tokenizer {
namespace {

std::string normalize(const BertNormalizer::Options& options, std::string_view text) {
  NormalizedString s(text);
  BertNormalizer(options).normalize(s);
  return s.get();
}

BertNormalizer::Options uncased() {
  return BertNormalizer::Options{};
}
BertNormalizer::Options cased() {
  BertNormalizer::Options o;
  o.lowercase = false;
  return o;
}

TEST(BertNormalizer, LowercasesAndStripsAccents) {
  EXPECT_EQ(normalize(uncased(), "ÉCOLE Élève naïve"), "ecole eleve naive");
  // strip_accents follows lowercase when unset: the cased model keeps accents.
  EXPECT_EQ(normalize(cased(), "ÉCOLE naïve"), "ÉCOLE naïve");
}

TEST(BertNormalizer, DottedCapitalIUsesTheFullLowercaseMapping) {
  auto o = uncased();
  o.strip_accents = false;
  EXPECT_EQ(normalize(o, "\u0130"), "i\u0307");
  EXPECT_EQ(normalize(uncased(), "\u0130stanbul"), "istanbul");
}

TEST(BertNormalizer, CleansControlsAndMapsWhitespace) {
  EXPECT_EQ(normalize(uncased(), std::string("a\tb\nc\rd\x01"
                                             "e\x7f"
                                             "f",
                                             11)),
            "a b c def");
  EXPECT_EQ(normalize(uncased(), "a\u00a0b\u3000c"), "a b c");
  // U+FFFD and U+0000 are removed; a zero-width space (Cf) too.
  EXPECT_EQ(normalize(uncased(), std::string("x\xef\xbf\xbd"
                                             "y\0z\u200bw",
                                             11)),
            "xyzw");
  // U+0085 is a control character first, so it is removed, not a space.
  EXPECT_EQ(normalize(uncased(), "a\u0085b"), "ab");
}

TEST(BertNormalizer, SurroundsCjkIdeographsWithSpaces) {
  EXPECT_EQ(normalize(uncased(), "ab你好"), "ab 你  好 ");
  EXPECT_EQ(normalize(uncased(), "カタカナ"), "カタカナ");  // kana are not in the CJK blocks
}

TEST(BertNormalizer, OffsetsPointIntoTheOriginal) {
  const std::string text = "Ünï 你";
  NormalizedString s(text);
  BertNormalizer(uncased()).normalize(s);
  ASSERT_EQ(s.get(), "uni  你 ");
  // 'u' came from the two bytes of 'Ü'.
  EXPECT_EQ(s.original_offsets(0, 1), (Offsets{0, 2}));
  // The ideograph keeps its own original span.
  const auto pos = s.get().find("你");
  EXPECT_EQ(s.original_offsets(pos, pos + 3), (Offsets{6, 9}));
}

TEST(BertNormalizer, CharactersNewerThanUnicode8AreNotPunctuationOrMarks) {
  // U+2E43 (Unicode 10) is punctuation today but not to Hugging Face; the
  // normalizer must leave it, and U+1AB0 (a 7.0 mark) must be stripped.
  EXPECT_EQ(normalize(uncased(), "a\u2e43b"), "a\u2e43b");
  EXPECT_EQ(normalize(uncased(), "a\u1ab0b"), "ab");
}

}  // namespace
}  // namespace sieve::tokenizer

namespace sieve::tokenizer {
namespace {

// NFD puts U+1D166 (class 216) before U+0316 (class 220). Hugging Face's
// transform assigns alignments by position, so the surviving U+1D166 gets the
// range of the first source character (U+0316, bytes 0-2), not its own; the
// tokens of "\u0316\U0001D166steeper" in bert-base-uncased start at 0
// (tokenizers 0.23.3).
TEST(BertNormalizer, ReorderedMarksKeepPositionalAlignments) {
  NormalizedString s("\u0316\U0001D166steeper");
  BertNormalizer(BertNormalizer::Options{}).normalize(s);
  EXPECT_EQ(s.get(), "\U0001D166steeper");
  EXPECT_EQ(s.original_offsets(0, 4), (Offsets{0, 2}));
  EXPECT_EQ(s.original_offsets(4, 5), (Offsets{6, 7}));
}

}  // namespace
}  // namespace sieve::tokenizer
