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

// Byte spans of `text`'s words that are words of `query`.
std::vector<std::pair<std::size_t, std::size_t>> match_spans(std::string_view text, std::string_view query);

}  // namespace sieve::search
