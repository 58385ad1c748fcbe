#include <gtest/gtest.h>

#include <string>

#include "sieve/text.hpp"

namespace sieve {
namespace {

TEST(EscapeControl, KeepsPrintableTextAndUtf8) {
  EXPECT_EQ(escape_control(""), "");
  EXPECT_EQ(escape_control("models/all-MiniLM-L6-v2 \\ \"x\""), "models/all-MiniLM-L6-v2 \\ \"x\"");
  // é, the euro sign, an emoji: UTF-8 of 2, 3 and 4 bytes.
  EXPECT_EQ(escape_control("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
}

TEST(EscapeControl, EscapesC0AndDel) {
  EXPECT_EQ(escape_control("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(escape_control("a\rb\bc\td\ne"), "a\\rb\\bc\\td\\ne");
  EXPECT_EQ(escape_control(std::string("a\0b", 3)), "a\\0b");
  EXPECT_EQ(escape_control("\x07\x7f\x01"), "\\x07\\x7f\\x01");
  EXPECT_EQ(escape_control("line 1\nline 2\r", true), "line 1\nline 2\\r");
}

TEST(EscapeControl, EscapesC1AndBytesThatAreNotUtf8) {
  // U+009B (CSI) and U+0085 (NEL) as UTF-8; a raw 0x9B byte, as an 8-bit terminal reads CSI.
  EXPECT_EQ(escape_control("a\xC2\x9B"
                           "31mb\xC2\x85"),
            "a\\u009b31mb\\u0085");
  EXPECT_EQ(escape_control("a\x9B"
                           "31m"),
            "a\\x9b31m");
  // U+00A0 is not a control character.
  EXPECT_EQ(escape_control("\xC2\xA0"), "\xC2\xA0");
  // Truncated, overlong and surrogate sequences, and a byte past U+10FFFF.
  EXPECT_EQ(escape_control("\xE2\x82"), "\\xe2\\x82");
  EXPECT_EQ(escape_control("\xC0\x9B"), "\\xc0\\x9b");
  EXPECT_EQ(escape_control("\xED\xA0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(escape_control("\xF5\x80\x80\x80"), "\\xf5\\x80\\x80\\x80");
}

TEST(EscapeControl, IsIdempotent) {
  const std::string once = escape_control("\x1b]0;title\x07\r\xC2\x9B\xff");
  EXPECT_EQ(escape_control(once), once);
  for (const char c : once) EXPECT_GE(static_cast<unsigned char>(c), 0x20);
}

}  // namespace
}  // namespace sieve
