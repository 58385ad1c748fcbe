#pragma once

// Small pieces every format reader shares: whitespace, case, the text
// builder that puts blocks on lines of their own, and the final checks of a
// document.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include "search/formats/format.hpp"

namespace sieve::search::text {

inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
inline char ascii_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
std::string lowercase(std::string_view s);
std::string_view trim(std::string_view s);
// Runs of whitespace become one space; none at the ends.
std::string collapse_whitespace(std::string_view s);
std::string_view strip_bom(std::string_view s);
bool starts_with_ci(std::string_view s, std::string_view prefix);

// One line of a text, without its line ending (LF or CRLF).
struct Line {
  std::string_view text;
  std::size_t next = 0;  // offset of the following line
};
Line line_at(std::string_view s, std::size_t pos);

// Throws sieve::Error (kInvalidInput) "<where>: invalid UTF-8 at byte N" unless `s` is well-formed UTF-8.
void require_utf8(std::string_view s, const std::string& where, std::size_t base_offset = 0);

// U+0000 becomes U+FFFD, as CommonMark does: PostgreSQL's text cannot hold it (libpq would end the value
// there and silently drop the rest), and no store should differ from another in what it keeps.
void replace_nul(std::string& s);

// The last checks every document passes: text, title and metadata valid UTF-8, NUL replaced, metadata sorted
// with unique keys (the first value of a key wins), sections in order within the text. A metadata name holding
// U+0000 is an error.
void finish_document(ExtractedDocument& doc, const std::string& where);

// Builds extracted text. Separators are requested rather than written so
// that nested blocks and runs of whitespace yield one separator, and none at
// the ends.
class TextBuilder {
 public:
  // Runs of whitespace become one space, as a browser renders normal flow text.
  void add_flowing(std::string_view s);
  void add_verbatim(std::string_view s);
  void request_space() { space_ = true; }
  // 1: a line break; 2: a blank line between blocks.
  void request_break(int newlines) { newlines_ = std::max(newlines_, newlines); }
  // Unlike block edges, hard breaks add up: two in a row leave a blank line.
  void add_line_break() { newlines_ = std::min(newlines_ + 1, 2); }
  // Where the next text will start (after any pending separator): for sections.
  [[nodiscard]] std::size_t next_offset() const;
  // The text, without whitespace at its ends. Offsets taken with next_offset()
  // are shifted by what was trimmed at the front: use `leading_trimmed()`.
  std::string finish();
  [[nodiscard]] std::size_t leading_trimmed() const { return leading_trimmed_; }

 private:
  void flush();

  std::string out_;
  int newlines_ = 0;
  bool space_ = false;
  std::size_t leading_trimmed_ = 0;
};

}  // namespace sieve::search::text
