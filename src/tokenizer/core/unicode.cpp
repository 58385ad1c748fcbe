#include "tokenizer/core/unicode.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <iterator>

namespace sieve::tokenizer::unicode {
namespace {

struct CodeRange {
  char32_t first;
  char32_t last;
};

struct CaseMapping {
  char32_t from;
  char32_t to;
};
struct MultiCaseMapping {
  char32_t from;
  char32_t to[3];
  int count;
};

// Generated at build time from DerivedAge.txt by tools/gen_unicode_age.py.
#include "unicode_age_after_8.inc"
// Generated at build time from the Unicode data by tools/gen_unicode_tables.py:
// kRegexWord, kRustNumeric, kRustLowercase, kRustLowercaseMulti.
#include "unicode_rust_tables.inc"

template <std::size_t N>
bool in_ranges(const CodeRange (&ranges)[N], char32_t cp) noexcept {
  const auto* it = std::upper_bound(std::begin(ranges), std::end(ranges), cp,
                                    [](char32_t c, const CodeRange& r) { return c < r.first; });
  return it != std::begin(ranges) && cp <= (it - 1)->last;
}

utf8proc_category_t category_v8(char32_t cp) noexcept {
  // Category changes between Unicode 8.0 and the utf8proc tables; found by
  // comparing every code point with Hugging Face.
  switch (cp) {
    case 0x166D: return UTF8PROC_CATEGORY_PO;  // CANADIAN SYLLABICS CHI SIGN
    case 0x1734: return UTF8PROC_CATEGORY_MN;  // HANUNOO SIGN PAMUDPOD
    case 0x1885:
    case 0x1886: return UTF8PROC_CATEGORY_LO;   // MONGOLIAN LETTER ALI GALI BALUDA
    case 0xA9BD: return UTF8PROC_CATEGORY_MC;   // JAVANESE CONSONANT SIGN KERET
    case 0x111C9: return UTF8PROC_CATEGORY_PO;  // SHARADA SANDHI MARK
    default: break;
  }
  if (cp >= 0x80 && assigned_after_unicode_8(cp)) return UTF8PROC_CATEGORY_CN;
  return utf8proc_category(static_cast<utf8proc_int32_t>(cp));
}

}  // namespace

bool assigned_after_unicode_8(char32_t cp) noexcept {
  const auto* end = kAssignedAfter8 + sizeof(kAssignedAfter8) / sizeof(kAssignedAfter8[0]);
  const auto* it =
      std::upper_bound(kAssignedAfter8, end, cp, [](char32_t c, const CodeRange& r) { return c < r.first; });
  if (it == kAssignedAfter8) return false;
  --it;
  return cp <= it->last;
}

std::size_t decode(std::string_view text, std::size_t pos, char32_t& out) noexcept {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data()) + pos;
  const std::size_t avail = text.size() - pos;
  const unsigned char b0 = s[0];
  if (b0 < 0x80) {
    out = b0;
    return 1;
  }
  if (b0 < 0xC2 || b0 > 0xF4) return 0;
  if (b0 < 0xE0) {
    if (avail < 2 || (s[1] & 0xC0) != 0x80) return 0;
    out = (static_cast<char32_t>(b0 & 0x1F) << 6) | (s[1] & 0x3F);
    return 2;
  }
  if (b0 < 0xF0) {
    if (avail < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) return 0;
    if (b0 == 0xE0 && s[1] < 0xA0) return 0;   // overlong
    if (b0 == 0xED && s[1] >= 0xA0) return 0;  // surrogate
    out = (static_cast<char32_t>(b0 & 0x0F) << 12) | (static_cast<char32_t>(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    return 3;
  }
  if (avail < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80) {
    return 0;
  }
  if (b0 == 0xF0 && s[1] < 0x90) return 0;   // overlong
  if (b0 == 0xF4 && s[1] >= 0x90) return 0;  // beyond U+10FFFF
  out = (static_cast<char32_t>(b0 & 0x07) << 18) | (static_cast<char32_t>(s[1] & 0x3F) << 12) |
        (static_cast<char32_t>(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
  return 4;
}

std::size_t utf8_length(char32_t cp) noexcept {
  if (cp < 0x80) return 1;
  if (cp < 0x800) return 2;
  if (cp < 0x10000) return 3;
  return 4;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::size_t find_invalid_utf8(std::string_view text) noexcept {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    char32_t cp = 0;
    const std::size_t n = decode(text, pos, cp);
    if (n == 0) return pos;
    pos += n;
  }
  return std::string_view::npos;
}

std::string replace_invalid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    char32_t cp = 0;
    const std::size_t n = decode(text, pos, cp);
    if (n == 0) {
      append_utf8(out, kReplacementChar);
      ++pos;
    } else {
      out.append(text.substr(pos, n));
      pos += n;
    }
  }
  return out;
}

bool is_whitespace(char32_t cp) noexcept {
  if (cp < 0x80) return cp == ' ' || (cp >= 0x09 && cp <= 0x0D);
  if (cp == 0x85) return true;
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP;
}

bool is_bert_control(char32_t cp) noexcept {
  if (cp == '\t' || cp == '\n' || cp == '\r') return false;
  // Unassigned code points (Cn) are "other" in name only: the crate Hugging
  // Face uses does not list them, so they are kept.
  const auto cat = category_v8(cp);
  return cat == UTF8PROC_CATEGORY_CC || cat == UTF8PROC_CATEGORY_CF || cat == UTF8PROC_CATEGORY_CO ||
         cat == UTF8PROC_CATEGORY_CS;
}

bool is_bert_punctuation(char32_t cp) noexcept {
  if (cp < 0x80) {
    return (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126);
  }
  const auto cat = category_v8(cp);
  return cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_PO;
}

bool is_chinese_char(char32_t cp) noexcept {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

bool is_nonspacing_mark(char32_t cp) noexcept {
  if (cp < 0x300) return false;
  return category_v8(cp) == UTF8PROC_CATEGORY_MN;
}

bool is_word_char(char32_t cp) noexcept {
  if (cp < 0x80) {
    return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_';
  }
  return in_ranges(kRegexWord, cp);
}

bool is_numeric(char32_t cp) noexcept {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  return in_ranges(kRustNumeric, cp);
}

int to_lowercase(char32_t cp, char32_t out[3]) noexcept {
  if (cp < 0x80) {
    out[0] = (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
    return 1;
  }
  for (const auto& multi : kRustLowercaseMulti) {
    if (multi.from == cp) {
      std::copy(multi.to, multi.to + multi.count, out);
      return multi.count;
    }
  }
  const auto* it = std::lower_bound(std::begin(kRustLowercase), std::end(kRustLowercase), cp,
                                    [](const CaseMapping& m, char32_t c) { return m.from < c; });
  out[0] = (it != std::end(kRustLowercase) && it->from == cp) ? it->to : cp;
  return 1;
}

std::size_t decompose_canonical(char32_t cp, char32_t* out, std::size_t capacity) noexcept {
  if (cp < 0xC0) {
    if (capacity > 0) out[0] = cp;
    return 1;
  }
  int last_boundclass = 0;
  const auto n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(cp), reinterpret_cast<utf8proc_int32_t*>(out),
                                         static_cast<utf8proc_ssize_t>(capacity), UTF8PROC_DECOMPOSE, &last_boundclass);
  if (n < 0) {
    if (capacity > 0) out[0] = cp;
    return 1;
  }
  return static_cast<std::size_t>(n);
}

int combining_class(char32_t cp) noexcept {
  if (cp < 0x300) return 0;
  return utf8proc_get_property(static_cast<utf8proc_int32_t>(cp))->combining_class;
}

}  // namespace sieve::tokenizer::unicode
