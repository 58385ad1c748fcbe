#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace sieve {

// The items of `range` joined by `separator` ("a, b, c"), each turned into
// text by `to_text` (the item itself by default): how messages, logs and
// generated scripts list names.
template <typename Range, typename ToText = std::identity>
std::string join(const Range& range, std::string_view separator, ToText to_text = {}) {
  std::string out;
  bool first = true;
  for (const auto& item : range) {
    if (!first) out += separator;
    first = false;
    out += std::invoke(to_text, item);
  }
  return out;
}

// `text` made safe to show on a terminal: text from outside (a hub's error
// message, a file name, a document, a model name) must not move the cursor,
// recolour the screen or rewrite what is already shown. C0 control
// characters and DEL become "\xHH" ("\x1b" for ESC, "\r", "\b", "\t" and
// "\0" as such), C1 control characters (U+0080 to U+009F) "\u0085" and the
// like, and bytes that are not UTF-8 "\xHH"; everything else, backslashes
// included, is kept. Newlines are kept only when `keep_newlines` (lines of
// Sieve's own formatting).
std::string escape_control(std::string_view text, bool keep_newlines = false);

// The candidate closest to `word` by edit distance (insertions, deletions,
// substitutions and swaps of two neighbours, case-insensitive), for "did you
// mean" in error messages; empty when none is close (more than a third of the
// word's length, at least 2, away).
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace sieve
