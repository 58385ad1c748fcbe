#include "search/text_match.hpp"

#include <libstemmer.h>
#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>

namespace sieve::search {
namespace text_match_detail {

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

// FTS5's porter tokenizer leaves tokens under 3 or over 64 bytes alone.
constexpr std::size_t kMinStemmed = 3;
constexpr std::size_t kMaxStemmed = 64;

struct StemmerDeleter {
  void operator()(sb_stemmer* stemmer) const noexcept { sb_stemmer_delete(stemmer); }
};

// A Snowball stemmer is not safe to share between threads: one per thread.
sb_stemmer* porter() {
  thread_local const std::unique_ptr<sb_stemmer, StemmerDeleter> stemmer(sb_stemmer_new("porter", "UTF_8"));
  return stemmer.get();
}

// Words too common to be worth highlighting.
constexpr std::array<std::string_view, 64> kStopWords{
    "a",   "about", "an",   "and",  "are",  "as",   "at",    "be",   "been", "but",   "by",    "can",  "could",
    "did", "do",    "does", "for",  "from", "had",  "has",   "have", "he",   "her",   "his",   "how",  "i",
    "if",  "in",    "into", "is",   "it",   "its",  "me",    "my",   "no",   "not",   "of",    "on",   "or",
    "our", "she",   "so",   "than", "that", "the",  "their", "them", "then", "there", "these", "they", "this",
    "to",  "was",   "we",   "were", "what", "when", "which", "who",  "will", "with",
};

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

bool is_continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U;
}

}  // namespace text_match_detail

std::vector<Word> split_words(std::string_view text) {
  std::vector<Word> words;
  std::size_t i = 0;
  std::size_t start = std::string_view::npos;
  const auto close = [&](std::size_t end) {
    if (start != std::string_view::npos) {
      // A run of combining marks alone (a variation selector after an emoji, a lone accent) folds to nothing:
      // FTS5 counts no token there, and neither may a PostgreSQL store (an empty lexeme is no tsvector).
      std::string key = text_match_detail::fold(text.substr(start, end - start));
      if (!key.empty()) words.push_back({start, end, std::move(key)});
      start = std::string_view::npos;
    }
  };
  while (i < text.size()) {
    utf8proc_int32_t code_point = 0;
    const auto length = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + i),
                                         static_cast<utf8proc_ssize_t>(text.size() - i), &code_point);
    const std::size_t step = length > 0 ? static_cast<std::size_t>(length) : 1;
    if (length > 0 && text_match_detail::is_word_char(code_point)) {
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

std::string stem(std::string_view key) {
  if (key.size() < text_match_detail::kMinStemmed || key.size() > text_match_detail::kMaxStemmed)
    return std::string(key);
  sb_stemmer* stemmer = text_match_detail::porter();
  if (stemmer == nullptr) return std::string(key);
  const sb_symbol* stemmed =
      sb_stemmer_stem(stemmer, reinterpret_cast<const sb_symbol*>(key.data()), static_cast<int>(key.size()));
  if (stemmed == nullptr) return std::string(key);
  return {reinterpret_cast<const char*>(stemmed), static_cast<std::size_t>(sb_stemmer_length(stemmer))};
}

bool is_stop_word(std::string_view key) {
  return std::find(text_match_detail::kStopWords.begin(), text_match_detail::kStopWords.end(), key) !=
         text_match_detail::kStopWords.end();
}

std::vector<std::string> highlight_terms(std::string_view query) {
  std::set<std::string> content;
  std::set<std::string> stop;
  for (const auto& word : split_words(query)) (is_stop_word(word.key) ? stop : content).insert(stem(word.key));
  const auto& terms = content.empty() ? stop : content;
  return {terms.begin(), terms.end()};
}

std::vector<std::pair<std::size_t, std::size_t>> match_spans(std::string_view text, std::string_view query) {
  const auto terms = highlight_terms(query);
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  if (terms.empty()) return spans;
  const std::set<std::string_view> wanted(terms.begin(), terms.end());
  for (const auto& word : split_words(text)) {
    if (wanted.contains(stem(word.key))) spans.emplace_back(word.begin, word.end);
  }
  return spans;
}

Passage find_passage(std::string_view text, const std::vector<std::pair<std::size_t, std::size_t>>& matches,
                     std::size_t width) {
  const std::size_t size = text.size();
  if (size <= width) return {0, size};
  // The cluster: the run of matches within `width` bytes holding the most distinct words, then the most matches.
  std::size_t first = 0;
  std::size_t last = 0;  // one past
  if (!matches.empty()) {
    std::vector<std::string> keys;
    keys.reserve(matches.size());
    for (const auto& [b, e] : matches) {
      const auto words = split_words(text.substr(b, e - b));
      keys.push_back(words.empty() ? std::string() : stem(words.front().key));
    }
    std::pair<std::size_t, std::size_t> best{0, 0};
    for (std::size_t i = 0; i < matches.size(); ++i) {
      std::set<std::string_view> distinct;
      std::size_t j = i;
      while (j < matches.size() && matches[j].second - matches[i].first <= width) distinct.insert(keys[j++]);
      if (j == i) j = i + 1;  // one match longer than the width
      const std::pair<std::size_t, std::size_t> score{distinct.size(), j - i};
      if (score > best) {
        best = score;
        first = i;
        last = j;
      }
    }
  }
  const std::size_t cluster_begin = matches.empty() ? 0 : matches[first].first;
  const std::size_t cluster_end = matches.empty() ? 0 : matches[last - 1].second;
  const std::size_t slack = width > cluster_end - cluster_begin ? width - (cluster_end - cluster_begin) : 0;
  std::size_t start = cluster_begin - std::min(cluster_begin, slack / 3);
  std::size_t stop = std::min(size, std::max(start + width, cluster_end));
  if (stop == size && size - start < width) start = std::min(cluster_begin, size - width);
  // Whole words: the start moves forward to the next whitespace-separated token (back to its own when that
  // would skip the cluster), the stop back to the previous token's end (forward to its own likewise).
  std::size_t begin = start;
  if (begin > 0 && !text_match_detail::is_space(text[begin - 1])) {
    while (begin < size && !text_match_detail::is_space(text[begin])) ++begin;
    if (begin > cluster_begin && !matches.empty()) {
      begin = start;
      while (begin > 0 && !text_match_detail::is_space(text[begin - 1])) --begin;
    }
  }
  while (begin < size && text_match_detail::is_space(text[begin])) ++begin;
  std::size_t end = stop;
  if (end < size && !text_match_detail::is_space(text[end])) {
    while (end > begin && !text_match_detail::is_space(text[end - 1])) --end;
    if (end < cluster_end || end <= begin) {
      end = stop;
      while (end < size && !text_match_detail::is_space(text[end])) ++end;
    }
  }
  while (end > begin && text_match_detail::is_space(text[end - 1])) --end;
  // A token of thousands of bytes (a URL, a line of base64): cut at characters instead.
  if (end - begin > 2 * width) {
    begin = std::min(start, cluster_begin);
    end = std::max(stop, cluster_end);
    while (begin > 0 && text_match_detail::is_continuation(text[begin])) --begin;
    while (end < size && text_match_detail::is_continuation(text[end])) ++end;
  }
  if (begin > 0 &&
      std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(begin), text_match_detail::is_space))
    begin = 0;
  if (end < size &&
      std::all_of(text.begin() + static_cast<std::ptrdiff_t>(end), text.end(), text_match_detail::is_space))
    end = size;
  return {begin, end};
}

Snippet make_snippet(std::string_view text, const std::vector<std::pair<std::size_t, std::size_t>>& matches,
                     Passage passage) {
  static constexpr std::string_view kEllipsis = "\u2026";
  Snippet snippet;
  if (passage.begin > 0) snippet.text = kEllipsis;
  const std::size_t offset = snippet.text.size();
  snippet.text.append(text.substr(passage.begin, passage.end - passage.begin));
  if (passage.end < text.size()) snippet.text.append(kEllipsis);
  for (const auto& [b, e] : matches) {
    if (b >= passage.begin && e <= passage.end) {
      snippet.matches.emplace_back(b - passage.begin + offset, e - passage.begin + offset);
    }
  }
  return snippet;
}

}  // namespace sieve::search
