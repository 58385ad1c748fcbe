#include "search/formats/text_encoding.hpp"

#include <array>
#include <cstdint>

#include "tokenizer/core/unicode.hpp"

namespace sieve::search::text {
namespace {

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Windows-1252's 0x80-0x9F (the rest of the code page is Latin-1).
constexpr std::array<char16_t, 32> kCp1252High = {0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                                  0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
                                                  0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                                  0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

std::string utf16_to_utf8(std::string_view bytes, bool little_endian) {
  std::string out;
  out.reserve(bytes.size());
  const auto unit = [&](std::size_t i) -> char16_t {
    const auto a = static_cast<unsigned char>(bytes[i]);
    const auto b = static_cast<unsigned char>(bytes[i + 1]);
    return static_cast<char16_t>(little_endian ? (a | (b << 8)) : ((a << 8) | b));
  };
  std::size_t i = 0;
  for (; i + 1 < bytes.size(); i += 2) {
    const char16_t u = unit(i);
    if (u >= 0xD800 && u <= 0xDBFF && i + 3 < bytes.size()) {
      const char16_t low = unit(i + 2);
      if (low >= 0xDC00 && low <= 0xDFFF) {
        append_utf8(out, 0x10000 + ((static_cast<char32_t>(u) - 0xD800) << 10) + (low - 0xDC00));
        i += 2;
        continue;
      }
    }
    // A lone surrogate is not a character: the replacement character stands in for it.
    append_utf8(out, (u >= 0xD800 && u <= 0xDFFF) ? char32_t{0xFFFD} : char32_t{u});
  }
  if (i < bytes.size()) append_utf8(out, 0xFFFD);  // an odd byte at the end
  return out;
}

}  // namespace

std::string windows1252_to_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 8);
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      out += c;
    } else if (b < 0xA0) {
      append_utf8(out, kCp1252High[b - 0x80]);
    } else {
      append_utf8(out, b);
    }
  }
  return out;
}

Decoded decode_text(std::string_view bytes) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (bytes.substr(0, 3) == kBom)
    bytes.remove_prefix(3);
  else if (bytes.size() >= 2 && bytes[0] == '\xFF' && bytes[1] == '\xFE')
    return {utf16_to_utf8(bytes.substr(2), true), {}};
  else if (bytes.size() >= 2 && bytes[0] == '\xFE' && bytes[1] == '\xFF')
    return {utf16_to_utf8(bytes.substr(2), false), {}};
  const std::size_t bad = tokenizer::unicode::find_invalid_utf8(bytes);
  if (bad == std::string_view::npos) return {std::string(bytes), {}};
  return {windows1252_to_utf8(bytes),
          "not valid UTF-8 (byte " + std::to_string(bad) + ") and no charset declared: read as Windows-1252 (Latin-1)"};
}

bool looks_binary(std::string_view head, bool named_text) {
  if (head.empty()) return false;
  if (head.size() >= 2 && ((head[0] == '\xFF' && head[1] == '\xFE') || (head[0] == '\xFE' && head[1] == '\xFF'))) {
    return false;
  }
  std::size_t control = 0;
  for (const char c : head) {
    const auto b = static_cast<unsigned char>(c);
    if (b == 0 && !named_text) return true;
    // Tab, line feed, form feed, carriage return, escape (terminal colours) and backspace (overstrike in
    // formatted manuals) occur in text.
    if (b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != '\v' && b != 0x1B && b != 0x08) {
      ++control;
    }
  }
  return named_text ? control * 20 > head.size() : control * 10 > head.size();
}

}  // namespace sieve::search::text
