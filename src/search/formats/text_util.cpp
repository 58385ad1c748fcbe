#include "search/formats/text_util.hpp"

#include <map>

#include "sieve/error.hpp"
#include "tokenizer/core/unicode.hpp"

namespace sieve::search::text {

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), ascii_lower);
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string collapse_whitespace(std::string_view s) {
  std::string out;
  bool pending_space = false;
  for (const char c : s) {
    if (is_space(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    out += c;
  }
  return out;
}

std::string_view strip_bom(std::string_view s) {
  if (s.substr(0, kUtf8Bom.size()) == kUtf8Bom) s.remove_prefix(kUtf8Bom.size());
  return s;
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (ascii_lower(s[i]) != ascii_lower(prefix[i])) return false;
  }
  return true;
}

Line line_at(std::string_view s, std::size_t pos) {
  const std::size_t nl = s.find('\n', pos);
  const std::size_t end = nl == std::string_view::npos ? s.size() : nl;
  std::string_view line = s.substr(pos, end - pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return {line, nl == std::string_view::npos ? s.size() : nl + 1};
}

void require_utf8(std::string_view s, const std::string& where, std::size_t base_offset) {
  if (const std::size_t bad = tokenizer::unicode::find_invalid_utf8(s); bad != std::string_view::npos) {
    throw Error(ErrorCode::kInvalidInput, where + ": invalid UTF-8 at byte " + std::to_string(base_offset + bad));
  }
}

void replace_nul(std::string& s) {
  for (std::size_t at = s.find('\0'); at != std::string::npos; at = s.find('\0', at + 3)) {
    s.replace(at, 1, "\xEF\xBF\xBD");
  }
}

void finish_document(ExtractedDocument& doc, const std::string& where) {
  require_utf8(doc.text, where + " (extracted text)");
  require_utf8(doc.title, where + " (extracted title)");
  replace_nul(doc.text);
  replace_nul(doc.title);
  std::map<std::string, std::string> metadata;
  for (auto& [key, value] : doc.metadata) {
    // Metadata names are keys of a table, where two names made equal would collide.
    if (key.find('\0') != std::string::npos) {
      throw Error(ErrorCode::kInvalidInput, where + ": a metadata name holds a NUL (\\u0000)");
    }
    require_utf8(key, where + " (metadata name)");
    require_utf8(value, where + " (metadata " + key + ")");
    replace_nul(value);
    metadata.emplace(std::move(key), std::move(value));
  }
  doc.metadata.assign(std::make_move_iterator(metadata.begin()), std::make_move_iterator(metadata.end()));
  std::size_t previous = 0;
  std::erase_if(doc.sections, [&](Section& section) {
    require_utf8(section.label, where + " (section label)");
    section.begin = std::min(section.begin, doc.text.size());
    if (section.begin < previous) return true;
    previous = section.begin;
    return false;
  });
}

// --- TextBuilder -------------------------------------------------------------

void TextBuilder::add_flowing(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    if (is_space(s[i])) {
      space_ = true;
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    flush();
    out_.append(s.substr(i, j - i));
    i = j;
  }
}

void TextBuilder::add_verbatim(std::string_view s) {
  if (s.empty()) return;
  flush();
  out_.append(s);
}

std::size_t TextBuilder::next_offset() const {
  if (out_.empty()) return 0;
  if (newlines_ > 0) {
    std::size_t end = out_.size();
    while (end > 0 && is_space(out_[end - 1])) --end;
    return end == 0 ? 0 : end + static_cast<std::size_t>(newlines_);
  }
  if (space_ && !is_space(out_.back())) return out_.size() + 1;
  return out_.size();
}

std::string TextBuilder::finish() {
  newlines_ = 0;
  space_ = false;
  const std::string_view all(out_);
  const std::string_view kept = trim(all);
  leading_trimmed_ = kept.empty() ? 0 : static_cast<std::size_t>(kept.data() - all.data());
  return std::string(kept);
}

void TextBuilder::flush() {
  if (!out_.empty()) {
    if (newlines_ > 0) {
      // Trailing blanks before a break (the end of a <pre> or a code block) would only pad the line.
      while (!out_.empty() && is_space(out_.back())) out_.pop_back();
      if (!out_.empty()) out_.append(static_cast<std::size_t>(newlines_), '\n');
    } else if (space_ && !is_space(out_.back())) {
      out_ += ' ';
    }
  }
  newlines_ = 0;
  space_ = false;
}

}  // namespace sieve::search::text
