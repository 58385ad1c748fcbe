#include "search/text_match.hpp"

#include <gtest/gtest.h>

namespace sieve::search {
namespace {

TEST(TextMatch, WordsAreLetterAndDigitRunsFoldedLikeFts5) {
  const auto words = split_words("Crème BRÛLÉE, 42 times... e-mail");
  ASSERT_EQ(words.size(), 6U);
  EXPECT_EQ(words[0].key, "creme");
  EXPECT_EQ(words[1].key, "brulee");
  EXPECT_EQ(words[2].key, "42");
  EXPECT_EQ(words[4].key, "e");
  EXPECT_EQ(words[5].key, "mail");
  EXPECT_EQ(words[1].begin, 7U);  // "Crème " is 7 bytes
}

TEST(TextMatch, FtsQueryQuotesEveryWordSoNothingIsSyntax) {
  EXPECT_EQ(fts_query("cats AND dogs"), "\"cats\" OR \"and\" OR \"dogs\"");
  EXPECT_EQ(fts_query("NEAR(a b) col:x* -y \"quoted\""),
            "\"near\" OR \"a\" OR \"b\" OR \"col\" OR \"x\" OR \"y\" OR \"quoted\"");
  EXPECT_EQ(fts_query("  ,,;  "), "");
  EXPECT_EQ(fts_query("repeat repeat REPEAT"), "\"repeat\"");
}

TEST(TextMatch, SpansCoverTheQueryWordsInTheText) {
  const std::string text = "The Café serves café au lait; cafeteria is different.";
  const auto spans = match_spans(text, "cafe lait");
  ASSERT_EQ(spans.size(), 3U);
  EXPECT_EQ(text.substr(spans[0].first, spans[0].second - spans[0].first), "Café");
  EXPECT_EQ(text.substr(spans[1].first, spans[1].second - spans[1].first), "café");
  EXPECT_EQ(text.substr(spans[2].first, spans[2].second - spans[2].first), "lait");
  EXPECT_TRUE(match_spans(text, "").empty());
}

TEST(TextMatch, InvalidUtf8DoesNotStopTheScan) {
  const std::string text = "ok \xff\xfe bad bytes then word";
  const auto spans = match_spans(text, "word");
  ASSERT_EQ(spans.size(), 1U);
  EXPECT_EQ(text.substr(spans[0].first), "word");
}

}  // namespace
}  // namespace sieve::search
