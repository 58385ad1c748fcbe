#include "search/text_match.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <set>

namespace sieve::search {
namespace {

bool is_word_char(utf8proc_int32_t code_point) {
  switch (utf8proc_category(code_point)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
    case UTF8PROC_CATEGORY_CO:
    case UTF8PROC_CATEGORY_MN:  // combining marks stay inside their word
      return true;
    default: return false;
  }
}

std::string fold(std::string_view word) {
  utf8proc_uint8_t* folded = nullptr;
  const auto options =
      static_cast<utf8proc_option_t>(UTF8PROC_CASEFOLD | UTF8PROC_STRIPMARK | UTF8PROC_COMPOSE | UTF8PROC_STABLE);
  const auto length = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(word.data()),
                                   static_cast<utf8proc_ssize_t>(word.size()), &folded, options);
  if (length < 0) return std::string(word);
  const std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owner(folded, &std::free);
  return {reinterpret_cast<const char*>(folded), static_cast<std::size_t>(length)};
}

}  // namespace

std::vector<Word> split_words(std::string_view text) {
  std::vector<Word> words;
  std::size_t i = 0;
  std::size_t start = std::string_view::npos;
  const auto close = [&](std::size_t end) {
    if (start != std::string_view::npos) {
      // A run of combining marks alone (a variation selector after an emoji, a lone accent) folds to nothing:
      // FTS5 counts no token there, and neither may a PostgreSQL store (an empty lexeme is no tsvector).
      std::string key = fold(text.substr(start, end - start));
      if (!key.empty()) words.push_back({start, end, std::move(key)});
      start = std::string_view::npos;
    }
  };
  while (i < text.size()) {
    utf8proc_int32_t code_point = 0;
    const auto length = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + i),
                                         static_cast<utf8proc_ssize_t>(text.size() - i), &code_point);
    const std::size_t step = length > 0 ? static_cast<std::size_t>(length) : 1;
    if (length > 0 && is_word_char(code_point)) {
      if (start == std::string_view::npos) start = i;
    } else {
      close(i);
    }
    i += step;
  }
  close(text.size());
  return words;
}

std::string fts_query(std::string_view text) {
  std::set<std::string> seen;
  std::string query;
  for (const auto& word : split_words(text)) {
    if (!seen.insert(word.key).second) continue;
    if (!query.empty()) query += " OR ";
    // Quoted: a word such as NEAR or AND, or a '*', is then just a word.
    query += '"';
    for (const char c : word.key) {
      if (c == '"') query += '"';
      query += c;
    }
    query += '"';
  }
  return query;
}

std::vector<std::pair<std::size_t, std::size_t>> match_spans(std::string_view text, std::string_view query) {
  std::set<std::string> wanted;
  for (auto& word : split_words(query)) wanted.insert(std::move(word.key));
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  if (wanted.empty()) return spans;
  for (const auto& word : split_words(text)) {
    if (wanted.contains(word.key)) spans.emplace_back(word.begin, word.end);
  }
  return spans;
}

}  // namespace sieve::search
