#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sieve::search {

struct Word {
  std::size_t begin = 0;  // byte offsets
  std::size_t end = 0;
  std::string key;  // case-folded, accents removed: what FTS5's unicode61 tokenizer compares
};

// Words as FTS5's unicode61 tokenizer sees them: runs of letters and digits
// (with their combining marks); a run that folds to nothing is no word.
std::vector<Word> split_words(std::string_view text);

// An FTS5 MATCH expression for free text: each distinct word quoted (so no
// user text is read as FTS5 syntax), any of them matching. Empty when the
// text has no words.
std::string fts_query(std::string_view text);

// A folded word's stem as FTS5's porter tokenizer makes it (the Porter
// algorithm; words under 3 or over 64 bytes are kept as they are): what the
// BM25 lists compare, so "quantize" and "quantization" meet.
std::string stem(std::string_view key);

// Whether a folded word is one of a small list of English stop words ("the",
// "of", "is", ...).
bool is_stop_word(std::string_view key);

// The stems a query highlights: its words' stems, stop words left out unless
// the query has nothing else.
std::vector<std::string> highlight_terms(std::string_view query);

// Byte spans of `text`'s words whose stem is one of `query`'s highlight
// terms.
std::vector<std::pair<std::size_t, std::size_t>> match_spans(std::string_view text, std::string_view query);

// A passage of a text to show: [begin, end) in bytes, at word boundaries
// (never inside a word or a UTF-8 character), around the densest cluster of
// `matches` (the text's start when there are none).
struct Passage {
  std::size_t begin = 0;
  std::size_t end = 0;
};
Passage find_passage(std::string_view text, const std::vector<std::pair<std::size_t, std::size_t>>& matches,
                     std::size_t width);

// The passage as a person reads it: "…" where text was cut away before or
// after it, and the matches inside it as byte spans of that string.
struct Snippet {
  std::string text;
  std::vector<std::pair<std::size_t, std::size_t>> matches;
};
Snippet make_snippet(std::string_view text, const std::vector<std::pair<std::size_t, std::size_t>>& matches,
                     Passage passage);

}  // namespace sieve::search
