#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/core/onig_pattern.hpp"
#include "tokenizer/core/regex.hpp"
#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {
namespace {

// Expected matches come from Hugging Face tokenizers 0.23.3 (Oniguruma,
// Unicode 16): pre_tokenizers.Split(Regex(pattern), "isolated"), the matched
// pieces only. tests/integration/test_tokenizer_parity.py compares every
// code point; these pin the cases that differ between Unicode versions.
std::vector<std::string> matches(std::string_view pattern, std::string_view text) {
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  Regex(pattern).find_all(text, spans);
  std::vector<std::string> out;
  for (const auto& [begin, end] : spans) out.emplace_back(text.substr(begin, end - begin));
  return out;
}

TEST(OnigPattern, LettersOfUnicode16MatchAndThoseOf17DoNot) {
  // U+16D43 KIRAT RAI letter (Unicode 16.0); U+10940 SIDETIC letter (17.0).
  EXPECT_EQ(matches(R"(\p{L}+)", "a\U00016D43b!"), std::vector<std::string>{"a\U00016D43b"});
  EXPECT_EQ(matches(R"(\p{L}+)", "a\U00010940b"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(matches(R"(\p{Letter}+)", "a\U00016D43b!"), std::vector<std::string>{"a\U00016D43b"});
}

TEST(OnigPattern, CategoriesThatChangedFollowUnicode16) {
  // U+1171E AHOM CONSONANT SIGN MEDIAL RA: Mn in Unicode 14, Mc since 15.
  EXPECT_TRUE(matches(R"(\p{Mn})", "a\U0001171Eb").empty());
  EXPECT_EQ(matches(R"(\P{Mn}+)", "a\U0001171Eb"), std::vector<std::string>{"a\U0001171Eb"});
  EXPECT_EQ(matches(R"(\p{^Mn}+)", "a\U0001171Eb"), std::vector<std::string>{"a\U0001171Eb"});
}

TEST(OnigPattern, WordDiffersInAndOutOfAClass) {
  // Outside a class Oniguruma's \w takes the Latin-1 superscripts in.
  EXPECT_EQ(matches(R"(\w+)", "x\u00B2y"), std::vector<std::string>{"x\u00B2y"});
  EXPECT_EQ(matches(R"([\w]+)", "x\u00B2y"), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(matches(R"(\W)", "x\u00B2y\u200D"), std::vector<std::string>{"\u200D"});
}

TEST(OnigPattern, SpacesAreOnigurumasWhiteSpace) {
  // U+180E MONGOLIAN VOWEL SEPARATOR: PCRE2's \s, not Oniguruma's.
  EXPECT_TRUE(matches(R"(\s)", "a\u180Eb").empty());
  EXPECT_EQ(matches(R"(\S+)", "a\u180Eb c"), (std::vector<std::string>{"a\u180Eb", "c"}));
}

TEST(OnigPattern, OtherPropertiesAndQuotedTextPassThrough) {
  EXPECT_EQ(matches(R"(\p{Han}+)", "\u4E2D\u6587a"), std::vector<std::string>{"\u4E2D\u6587"});
  EXPECT_EQ(to_pcre2_pattern(R"(\Q\p{L}\E)"), R"(\Q\p{L}\E)");
  EXPECT_EQ(to_pcre2_pattern("abc"), "abc");
  EXPECT_FALSE(pcre2_unicode_version().empty());
}

TEST(UnicodeTables, LowercaseIsRustsUnicode17) {
  char32_t out[3] = {};
  ASSERT_EQ(unicode::to_lowercase(0xA7CB, out), 1);  // Unicode 16.0
  EXPECT_EQ(out[0], 0x264U);
  ASSERT_EQ(unicode::to_lowercase(0xA7CE, out), 1);  // Unicode 17.0
  EXPECT_EQ(out[0], 0xA7CFU);
  ASSERT_EQ(unicode::to_lowercase(0x10D50, out), 1);  // GARAY, Unicode 16.0
  EXPECT_EQ(out[0], 0x10D70U);
  ASSERT_EQ(unicode::to_lowercase(0x130, out), 2);
  EXPECT_EQ(out[0], U'i');
  EXPECT_EQ(out[1], 0x307U);
  ASSERT_EQ(unicode::to_lowercase(0x4E2D, out), 1);
  EXPECT_EQ(out[0], 0x4E2DU);
}

TEST(UnicodeTables, NumericAndWordCharacters) {
  EXPECT_TRUE(unicode::is_numeric(0x1E5F1));  // OL ONAL DIGIT ONE, Unicode 16.0
  EXPECT_TRUE(unicode::is_numeric(0x16D70));  // KIRAT RAI DIGIT ZERO, Unicode 16.0
  EXPECT_FALSE(unicode::is_numeric(U'a'));
  EXPECT_TRUE(unicode::is_word_char(0x24B6));  // CIRCLED LATIN CAPITAL LETTER A: Other_Alphabetic
  EXPECT_TRUE(unicode::is_word_char(0x200D));  // Join_Control: in the regex crate's \w
  EXPECT_FALSE(unicode::is_word_char(0xB2));   // SUPERSCRIPT TWO: No
}

}  // namespace
}  // namespace sieve::tokenizer
