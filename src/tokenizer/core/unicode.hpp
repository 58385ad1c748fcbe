#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

// Character properties exactly as Hugging Face `tokenizers` sees them.
//
// Hugging Face takes general categories from the `unicode_categories` crate,
// whose tables are Unicode 8.0, while its whitespace and case mappings come
// from Rust's standard library (current Unicode). utf8proc gives us current
// Unicode; to reproduce the 8.0 view we treat characters assigned after 8.0
// (from the Unicode Character Database's DerivedAge.txt, turned into a table
// at build time) as unassigned, and patch the five characters whose category
// changed since. tests/integration/test_unicode_parity.py checks every code
// point against Hugging Face.
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
bool is_word_char(char32_t cp) noexcept;         // regex \w

// Full lowercase mapping of one character, as Rust's char::to_lowercase.
// Writes up to 3 code points; returns how many.
int to_lowercase(char32_t cp, char32_t out[3]) noexcept;

// Canonical decomposition of one character (recursively), without reordering.
// Writes up to `capacity` code points; returns how many were needed.
std::size_t decompose_canonical(char32_t cp, char32_t* out, std::size_t capacity) noexcept;
int combining_class(char32_t cp) noexcept;

}  // namespace sieve::tokenizer::unicode
