#include "search/text_match.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

std::vector<std::string> matched(const std::string& text, const std::string& query) {
  std::vector<std::string> words;
  for (const auto& [b, e] : match_spans(text, query)) words.push_back(text.substr(b, e - b));
  return words;
}

// A UTF-8 string that is valid: every lead byte followed by its continuation bytes.
bool valid_utf8(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t length = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (std::size_t j = 1; j < length; ++j) {
      if ((static_cast<unsigned char>(text[i + j]) & 0xC0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

TEST(TextMatch, StemsAsThePorterAlgorithmDoes) {
  // Porter (1980): step 2 maps -ization to -ize, step 4 drops -ize; step 1b drops -ed; short words stay.
  EXPECT_EQ(stem("quantization"), "quantiz");
  EXPECT_EQ(stem("quantize"), "quantiz");
  EXPECT_EQ(stem("quantized"), "quantiz");
  EXPECT_EQ(stem("running"), "run");
  EXPECT_EQ(stem("ponies"), "poni");
  EXPECT_EQ(stem("is"), "is");
}

TEST(TextMatch, HighlightsMatchStemmedForms) {
  EXPECT_EQ(matched("Quantization shrinks models; we quantized ours and quantize yours.", "quantize"),
            (std::vector<std::string>{"Quantization", "quantized", "quantize"}));
  EXPECT_EQ(matched("Running runners run.", "runs"), (std::vector<std::string>{"Running", "run"}));
}

TEST(TextMatch, StopWordsAreNotHighlightedUnlessTheQueryHasNothingElse) {
  const std::string text = "The cat is on the mat, and that is all of it.";
  EXPECT_EQ(matched(text, "what is the cat on"), (std::vector<std::string>{"cat"}));
  EXPECT_EQ(matched(text, "the mat"), (std::vector<std::string>{"mat"}));
  EXPECT_EQ(matched(text, "the"), (std::vector<std::string>{"The", "the"}));
  EXPECT_EQ(highlight_terms("The AND of it"), (std::vector<std::string>{"and", "it", "of", "the"}));
}

TEST(TextMatch, PassageSurroundsTheDensestClusterAtWordBoundaries) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "filler" + std::to_string(i) + " ";
  text += "a lone glacier here ";
  for (int i = 0; i < 40; ++i) text += "padding" + std::to_string(i) + " ";
  text += "glacier valley glacier moraine valley ";
  for (int i = 0; i < 40; ++i) text += "tail" + std::to_string(i) + " ";
  const auto spans = match_spans(text, "glacier valley");
  ASSERT_EQ(spans.size(), 5U);
  const Passage passage = find_passage(text, spans, 120);
  // The cluster of four matches, not the lone one.
  EXPECT_LE(passage.begin, spans[1].first);
  EXPECT_GE(passage.end, spans[4].second);
  EXPECT_GT(passage.begin, spans[0].second);
  EXPECT_LE(passage.end - passage.begin, 120U);
  // Cut between words: whitespace (or the text's edge) on the outer side, a word on the inner side.
  EXPECT_EQ(text[passage.begin - 1], ' ');
  EXPECT_NE(text[passage.begin], ' ');
  EXPECT_EQ(text[passage.end], ' ');
  EXPECT_NE(text[passage.end - 1], ' ');
  const Snippet snippet = make_snippet(text, spans, passage);
  EXPECT_EQ(snippet.text, "\u2026" + text.substr(passage.begin, passage.end - passage.begin) + "\u2026");
  ASSERT_EQ(snippet.matches.size(), 4U);
  for (const auto& [b, e] : snippet.matches) {
    const std::string word = snippet.text.substr(b, e - b);
    EXPECT_TRUE(word == "glacier" || word == "valley") << word;
  }
}

TEST(TextMatch, PassageWithoutMatchesIsTheStartAndShortTextsAreWhole) {
  const std::string text = "Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi.";
  const Passage start = find_passage(text, {}, 30);
  EXPECT_EQ(start.begin, 0U);
  EXPECT_EQ(text.substr(0, start.end), "Alpha beta gamma delta epsilon");
  const Snippet snippet = make_snippet(text, {}, start);
  EXPECT_EQ(snippet.text, "Alpha beta gamma delta epsilon\u2026");
  const Passage whole = find_passage(text, {}, 500);
  EXPECT_EQ(whole.begin, 0U);
  EXPECT_EQ(whole.end, text.size());
  EXPECT_EQ(make_snippet(text, {}, whole).text, text);
}

TEST(TextMatch, PassageNeverSplitsAUtf8Character) {
  std::string text;
  for (int i = 0; i < 60; ++i) text += "żółć ĝis 日本語 ";
  text += "café ";
  for (int i = 0; i < 60; ++i) text += "ünïcödé 😀 ";
  const auto spans = match_spans(text, "CAFE");
  ASSERT_EQ(spans.size(), 1U);
  for (const std::size_t width : {20U, 41U, 77U, 150U}) {
    const Passage passage = find_passage(text, spans, width);
    const Snippet snippet = make_snippet(text, spans, passage);
    EXPECT_TRUE(valid_utf8(snippet.text)) << width;
    EXPECT_EQ(text[passage.begin - 1], ' ');
    EXPECT_EQ(text[passage.end], ' ');
    ASSERT_EQ(snippet.matches.size(), 1U);
    EXPECT_EQ(snippet.text.substr(snippet.matches[0].first, snippet.matches[0].second - snippet.matches[0].first),
              "café");
  }
  // One token of thousands of bytes: cut at characters.
  std::string long_token;
  for (int i = 0; i < 500; ++i) long_token += "é日";
  const Passage cut = find_passage(long_token, {}, 100);
  EXPECT_EQ(cut.begin, 0U);
  EXPECT_TRUE(valid_utf8(long_token.substr(cut.begin, cut.end - cut.begin)));
  EXPECT_LT(cut.end, long_token.size());
}

}  // namespace
}  // namespace sieve::search
