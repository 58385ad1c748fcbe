#include "tokenizer/core/added_vocabulary.hpp"

#include <algorithm>

#include "tokenizer/core/unicode.hpp"

namespace sieve::tokenizer {
namespace {

char32_t last_char(std::string_view text) {
  if (text.empty()) return 0;
  std::size_t pos = text.size() - 1;
  while (pos > 0 && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) --pos;
  char32_t cp = 0;
  return unicode::decode(text, pos, cp) ? cp : 0;
}

char32_t first_char(std::string_view text) {
  char32_t cp = 0;
  return !text.empty() && unicode::decode(text, 0, cp) ? cp : 0;
}

// Start of the whitespace run that ends `text`.
std::size_t trailing_space_start(std::string_view text) {
  std::size_t pos = text.size();
  while (pos > 0) {
    std::size_t start = pos - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    char32_t cp = 0;
    if (!unicode::decode(text, start, cp) || !unicode::is_whitespace(cp)) break;
    pos = start;
  }
  return pos;
}

std::size_t leading_space_length(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    char32_t cp = 0;
    const std::size_t len = unicode::decode(text, pos, cp);
    if (len == 0 || !unicode::is_whitespace(cp)) break;
    pos += len;
  }
  return pos;
}

}  // namespace

std::vector<AddedToken> AddedVocabulary::parse(const JsonView& node) {
  std::vector<AddedToken> tokens;
  for (std::size_t i = 0; i < node.array_size(); ++i) {
    const JsonView item = node.at(i);
    item.expect_object();
    AddedToken t;
    const auto id = item.at("id").as_uint();
    if (id > UINT32_MAX) item.at("id").fail("id out of range");
    t.id = static_cast<std::uint32_t>(id);
    t.content = item.at("content").as_string();
    if (t.content.empty()) item.at("content").fail("added token content is empty");
    if (unicode::find_invalid_utf8(t.content) != std::string::npos) item.at("content").fail("not valid UTF-8");
    t.single_word = item.get_bool("single_word", false);
    t.lstrip = item.get_bool("lstrip", false);
    t.rstrip = item.get_bool("rstrip", false);
    t.special = item.get_bool("special", false);
    t.normalized = item.get_bool("normalized", !t.special);
    tokens.push_back(std::move(t));
  }
  return tokens;
}

AddedVocabulary::AddedVocabulary(std::vector<AddedToken> tokens, const Normalizer* normalizer)
    : tokens_(std::move(tokens)) {
  std::vector<std::pair<std::string, std::size_t>> raw;
  std::vector<std::pair<std::string, std::size_t>> normalized;
  for (std::size_t i = 0; i < tokens_.size(); ++i) {
    const AddedToken& t = tokens_[i];
    by_id_.emplace(t.id, i);
    by_content_.emplace(t.content, i);
    if (t.normalized) {
      // Matched against normalized text, so the pattern is normalized too.
      NormalizedString content(t.content);
      if (normalizer != nullptr) normalizer->normalize(content);
      if (!content.empty()) normalized.emplace_back(content.get(), i);
    } else {
      raw.emplace_back(t.content, i);
    }
  }
  raw_ = build_matcher(std::move(raw));
  normalized_ = build_matcher(std::move(normalized));
}

AddedVocabulary::Matcher AddedVocabulary::build_matcher(std::vector<std::pair<std::string, std::size_t>> entries) {
  Matcher m;
  for (auto& [pattern, index] : entries) {
    m.patterns.push_back(std::move(pattern));
    m.token_index.push_back(index);
  }
  for (std::size_t i = 0; i < m.patterns.size(); ++i) {
    m.by_first_byte[static_cast<unsigned char>(m.patterns[i][0])].push_back(i);
  }
  for (auto& bucket : m.by_first_byte) {
    std::stable_sort(bucket.begin(), bucket.end(),
                     [&](std::size_t a, std::size_t b) { return m.patterns[a].size() > m.patterns[b].size(); });
  }
  return m;
}

const AddedToken* AddedVocabulary::find(std::string_view content) const {
  const auto it = by_content_.find(std::string(content));
  return it == by_content_.end() ? nullptr : &tokens_[it->second];
}

const AddedToken* AddedVocabulary::find(std::uint32_t id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &tokens_[it->second];
}

void AddedVocabulary::split_matches(NormalizedString text, const Matcher& matcher, std::vector<Split>& out) const {
  const std::string& s = text.get();
  if (matcher.empty() || s.empty()) {
    out.push_back(Split{std::move(text), {}, false});
    return;
  }
  std::size_t emitted = 0;  // end of what has been pushed so far
  std::size_t pos = 0;
  while (pos < s.size()) {
    const auto& bucket = matcher.by_first_byte[static_cast<unsigned char>(s[pos])];
    std::size_t matched = std::string::npos;
    for (const std::size_t p : bucket) {
      const std::string& pattern = matcher.patterns[p];
      if (s.compare(pos, pattern.size(), pattern) == 0) {
        matched = p;
        break;
      }
    }
    if (matched == std::string::npos) {
      ++pos;
      continue;
    }
    const AddedToken& token = tokens_[matcher.token_index[matched]];
    std::size_t start = pos;
    std::size_t stop = pos + matcher.patterns[matched].size();
    if (token.single_word) {
      const bool word_before = start > 0 && unicode::is_word_char(last_char(std::string_view(s).substr(0, start)));
      const bool word_after = stop < s.size() && unicode::is_word_char(first_char(std::string_view(s).substr(stop)));
      if (word_before || word_after) {
        ++pos;
        continue;
      }
    }
    if (token.lstrip) start = std::max(trailing_space_start(std::string_view(s).substr(0, start)), emitted);
    if (token.rstrip) stop += leading_space_length(std::string_view(s).substr(stop));
    if (emitted < start) out.push_back(Split{text.slice(emitted, start), {}, false});
    Split special{text.slice(start, stop), {}, true};
    special.tokens.push_back(Token{token.id, 0, static_cast<std::uint32_t>(stop - start)});
    out.push_back(std::move(special));
    emitted = stop;
    pos = stop;
  }
  if (emitted < s.size()) out.push_back(Split{text.slice(emitted, s.size()), {}, false});
}

void AddedVocabulary::extract_and_normalize(std::string_view input, const Normalizer* normalizer,
                                            std::vector<Split>& out) const {
  std::vector<Split> raw_splits;
  split_matches(NormalizedString(input), raw_, raw_splits);
  for (auto& split : raw_splits) {
    if (split.tokenized) {
      out.push_back(std::move(split));
      continue;
    }
    if (normalizer != nullptr) normalizer->normalize(split.text);
    split_matches(std::move(split.text), normalized_, out);
  }
}

}  // namespace sieve::tokenizer
