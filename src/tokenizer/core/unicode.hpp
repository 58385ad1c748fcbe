#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

// Character properties exactly as Hugging Face `tokenizers` sees them.
//
// Hugging Face mixes Unicode versions, and so must we: general categories
// come from the `unicode_categories` crate, whose tables are Unicode 8.0;
// case mappings and char::is_numeric from Rust's standard library (17.0);
// the Whitespace pre-tokenizer's \w from the regex crate (16.0); regular
// expressions from Oniguruma (16.0, see onig_pattern.hpp). utf8proc gives
// 15.0: to reproduce the 8.0 view we treat characters assigned after 8.0
// (DerivedAge.txt, turned into a table at build time) as unassigned and patch
// the five characters whose category changed since; the 16.0 and 17.0 tables
// are generated from the @unicode npm packages (tools/gen_unicode_tables.py).
// tests/integration/test_tokenizer_parity.py checks every code point against
// Hugging Face.
namespace sieve::tokenizer::unicode {

constexpr char32_t kReplacementChar = 0xFFFD;

// Decodes one code point at `pos`; returns its byte length, or 0 when the
// bytes there are not valid UTF-8 (overlong, surrogate, truncated, > U+10FFFF).
std::size_t decode(std::string_view text, std::size_t pos, char32_t& out) noexcept;
// Byte length of the valid UTF-8 character starting with `lead`.
inline std::size_t sequence_length(unsigned char lead) noexcept {
  if (lead < 0x80) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}
void append_utf8(std::string& out, char32_t cp);
std::size_t utf8_length(char32_t cp) noexcept;

// Offset of the first invalid byte, or npos when `text` is valid UTF-8.
std::size_t find_invalid_utf8(std::string_view text) noexcept;
// Replaces each byte that is not part of a valid sequence with U+FFFD.
std::string replace_invalid_utf8(std::string_view text);

bool assigned_after_unicode_8(char32_t cp) noexcept;

bool is_whitespace(char32_t cp) noexcept;        // Rust char::is_whitespace
bool is_bert_control(char32_t cp) noexcept;      // Cc/Cf/Cn/Co/Cs of Unicode 8.0, minus \t\n\r
bool is_bert_punctuation(char32_t cp) noexcept;  // ASCII punctuation or P* of Unicode 8.0
bool is_chinese_char(char32_t cp) noexcept;      // the CJK blocks BERT isolates
bool is_nonspacing_mark(char32_t cp) noexcept;   // Mn of Unicode 8.0
bool is_word_char(char32_t cp) noexcept;         // the Rust regex crate's \w (Unicode 16)
bool is_numeric(char32_t cp) noexcept;           // Rust char::is_numeric (Unicode 17)

// Full lowercase mapping of one character, as Rust's char::to_lowercase (Unicode 17).
// Writes up to 3 code points; returns how many.
int to_lowercase(char32_t cp, char32_t out[3]) noexcept;

// Canonical decomposition of one character (recursively), without reordering.
// Writes up to `capacity` code points; returns how many were needed.
std::size_t decompose_canonical(char32_t cp, char32_t* out, std::size_t capacity) noexcept;
int combining_class(char32_t cp) noexcept;

}  // namespace sieve::tokenizer::unicode
