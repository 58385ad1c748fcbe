#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "search/postgres.hpp"
#include "tokenizer/core/unicode.hpp"

namespace sieve::search {
namespace {

// A tsvector literal read as PostgreSQL's tsvector input reads it (its
// documentation, "8.11.1 tsvector"): quoted lexemes separated by spaces,
// '' for a quote and a backslash escaping the next character, each followed
// by :positions. Checked against tsvector's limits: a lexeme is not empty
// and under 2 KiB, lexemes together are under 1 MiB, positions run from 1
// to 16,383 and a lexeme has at most 256 of them.
struct Parsed {
  std::map<std::string, std::vector<int>> lexemes;
  std::string error;  // empty: a literal PostgreSQL accepts
};

Parsed parse_tsvector(const std::string& literal) {
  Parsed out;
  std::size_t i = 0;
  std::size_t total = 0;
  const auto fail = [&](const std::string& why) {
    out.error = why + " at byte " + std::to_string(i);
    return out;
  };
  while (i < literal.size()) {
    if (literal[i] != '\'') return fail("a lexeme that is not quoted");
    ++i;
    std::string lexeme;
    while (true) {
      if (i >= literal.size()) return fail("an unterminated lexeme");
      const char c = literal[i++];
      if (c == '\\') {
        if (i >= literal.size()) return fail("a backslash at the end");
        lexeme += literal[i++];
      } else if (c == '\'') {
        if (i < literal.size() && literal[i] == '\'') {
          lexeme += '\'';
          ++i;
        } else {
          break;
        }
      } else {
        lexeme += c;
      }
    }
    if (lexeme.empty()) return fail("an empty lexeme");
    if (lexeme.size() >= 2048) return fail("a lexeme of 2 KiB or more");
    if (out.lexemes.contains(lexeme)) return fail("a repeated lexeme");
    total += lexeme.size();
    auto& positions = out.lexemes[lexeme];
    if (i >= literal.size() || literal[i] != ':') return fail("a lexeme without positions");
    ++i;
    while (true) {
      std::size_t digits = 0;
      int value = 0;
      while (i < literal.size() && literal[i] >= '0' && literal[i] <= '9') {
        value = value * 10 + (literal[i++] - '0');
        if (++digits > 5) return fail("a position of more than five digits");
      }
      if (digits == 0) return fail("a missing position");
      if (value < 1 || value > 16383) return fail("a position out of 1..16383");
      positions.push_back(value);
      if (i < literal.size() && literal[i] == ',') {
        ++i;
        continue;
      }
      break;
    }
    if (positions.size() > 256) return fail("more than 256 positions");
    if (i < literal.size()) {
      if (literal[i] != ' ') return fail("no space between lexemes");
      ++i;
    }
  }
  if (total >= (std::size_t{1} << 20)) return fail("lexemes of 1 MiB or more");
  return out;
}

Parsed checked(const std::string& text) {
  std::size_t count = 0;
  const std::string literal = pg::tsvector_text(text, &count);
  Parsed parsed = parse_tsvector(literal);
  EXPECT_EQ(parsed.error, "") << literal.substr(0, 300);
  return parsed;
}

TEST(PostgresTsvector, EmojiSequencesAndLoneMarksMakeNoEmptyLexeme) {
  // The red team's case: a variation selector after an emoji is a combining mark that folds to nothing.
  const auto parsed = checked("I love it \u2764\ufe0f so much");
  EXPECT_EQ(parsed.lexemes, (std::map<std::string, std::vector<int>>{
                                {"i", {1}}, {"love", {2}}, {"it", {3}}, {"so", {4}}, {"much", {5}}}));
  for (const char* text :
       {"\U0001F468\u200D\U0001F469\u200D\U0001F467 family \U0001F3F3\uFE0F\u200D\U0001F308", "\u0301",
        "\u0301\u0302\u0303 alone", " \u20DD \u093F ", "\uFE0F\uFE0F\uFE0E", "\U0001F44D\U0001F3FD", "e\u0301"}) {
    (void)checked(text);
  }
  std::size_t count = 1;
  EXPECT_EQ(pg::tsvector_text("\u0301 \uFE0F", &count), "");
  EXPECT_EQ(count, 0U);
}

TEST(PostgresTsvector, EveryCodePointAloneInsideAWordAndDoubled) {
  // Every Unicode scalar value, a block at a time: alone, between two letters, twice in a row.
  for (std::uint32_t block = 1; block < 0x110000; block += 0x1000) {
    std::string text;
    for (std::uint32_t cp = block; cp < block + 0x1000 && cp < 0x110000; ++cp) {
      if (cp >= 0xD800 && cp <= 0xDFFF) continue;
      tokenizer::unicode::append_utf8(text, static_cast<char32_t>(cp));
      text += " a";
      tokenizer::unicode::append_utf8(text, static_cast<char32_t>(cp));
      text += "b ";
      tokenizer::unicode::append_utf8(text, static_cast<char32_t>(cp));
      tokenizer::unicode::append_utf8(text, static_cast<char32_t>(cp));
      text += ' ';
    }
    std::size_t count = 0;
    const std::string literal = pg::tsvector_text(text, &count);
    const Parsed parsed = parse_tsvector(literal);
    ASSERT_EQ(parsed.error, "") << "block U+" << std::hex << block;
  }
}

TEST(PostgresTsvector, QuotesAndBackslashesAreEscaped) {
  // Neither is a word character, so they only reach a lexeme through a word's own folding; the literal must
  // hold whatever does.
  const auto parsed = checked("it's O'Brien's \"quoted\" 'single' back\\slash \\\\ \\' '' end\\");
  EXPECT_TRUE(parsed.lexemes.contains("brien"));
  EXPECT_TRUE(parsed.lexemes.contains("slash"));
}

TEST(PostgresTsvector, TheLimitsHold) {
  // A word of 3,000 bytes is left out; positions stop at 16,383 and 256 per lexeme; distinct lexemes stop
  // short of 1 MiB.
  std::string text = std::string(3000, 'w') + " short";
  for (int i = 0; i < 20000; ++i) text += " same";
  auto parsed = checked(text);
  EXPECT_FALSE(parsed.lexemes.contains(std::string(3000, 'w')));
  EXPECT_EQ(parsed.lexemes.at("same").size(), 256U);
  EXPECT_EQ(parsed.lexemes.at("short"), std::vector<int>{2});
  std::string many;
  for (int i = 0; i < 12000; ++i) many += std::string(100, 'x') + std::to_string(i) + ' ';
  parsed = checked(many);
  std::size_t total = 0;
  for (const auto& [lexeme, positions] : parsed.lexemes) total += lexeme.size();
  EXPECT_GT(total, (std::size_t{1} << 20) - 200);
  EXPECT_LT(total, std::size_t{1} << 20);
  for (const auto& [lexeme, positions] : parsed.lexemes) EXPECT_LE(positions.back(), 16383);
}

}  // namespace
}  // namespace sieve::search
