#include "search/formats/code_units.hpp"

#include <array>

namespace sieve::search {
namespace {
namespace code_units {

struct Line {
  std::size_t begin = 0;
  std::string_view text;  // without its line break
};

std::vector<Line> lines_of(std::string_view text) {
  std::vector<Line> lines;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({begin, line});
    begin = end + 1;
  }
  return lines;
}

// Columns of leading whitespace (a tab counts four); npos for a blank line.
std::size_t indent_of(std::string_view line) {
  std::size_t columns = 0;
  for (const char c : line) {
    if (c == ' ') {
      ++columns;
    } else if (c == '\t') {
      columns += 4;
    } else {
      return columns;
    }
  }
  return std::string_view::npos;
}

std::string_view trimmed(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t");
  return first == std::string_view::npos ? std::string_view{} : line.substr(first);
}

bool starts_with_word(std::string_view text, std::string_view word) {
  if (!text.starts_with(word)) return false;
  if (text.size() == word.size()) return true;
  const char next = text[word.size()];
  return next == ' ' || next == '\t' || next == '(' || next == '<' || next == '{' || next == ':';
}

// A line whose first words define something, after modifiers (export, pub, static, async...).
bool defines(std::string_view line) {
  static constexpr std::array<std::string_view, 14> kModifiers = {
      "export", "default", "pub",      "pub(crate)", "public", "private", "protected",
      "static", "async",   "abstract", "final",      "inline", "unsafe",  "extern"};
  static constexpr std::array<std::string_view, 20> kDefiners = {
      "def",       "class",  "fn",        "func",     "function", "struct", "enum",   "union",  "impl", "trait",
      "interface", "module", "namespace", "template", "sub",      "proc",   "object", "record", "type", "macro_rules!"};
  bool changed = true;
  while (changed) {
    changed = false;
    for (const std::string_view modifier : kModifiers) {
      if (starts_with_word(line, modifier)) {
        line = trimmed(line.substr(modifier.size()));
        changed = true;
      }
    }
  }
  for (const std::string_view definer : kDefiners) {
    if (starts_with_word(line, definer)) return true;
  }
  return false;
}

bool closes_block(std::string_view line) {
  return line.starts_with('}') || line.starts_with(')') || line.starts_with(']') || starts_with_word(line, "end") ||
         line.starts_with("end;") || line.starts_with("fi") || line.starts_with("done") || line.starts_with("esac");
}

// Comments, decorators and attributes that belong to the definition below them.
bool leads_in(std::string_view line) {
  return line.starts_with("//") || line.starts_with('#') || line.starts_with("/*") || line.starts_with("* ") ||
         line == "*" || line.starts_with("*/") || line.starts_with("--") || line.starts_with(';') ||
         line.starts_with('@');
}

}  // namespace code_units
}  // namespace

std::vector<std::size_t> code_unit_starts(std::string_view text) {
  using namespace code_units;
  const std::vector<Line> lines = lines_of(text);
  std::vector<std::size_t> starts;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::size_t indent = indent_of(lines[i].text);
    if (indent == std::string_view::npos) continue;
    const std::string_view code = trimmed(lines[i].text);
    const bool after_blank = indent_of(lines[i - 1].text) == std::string_view::npos;
    const bool unit = (indent <= 4 && defines(code)) || (indent == 0 && after_blank && !closes_block(code));
    if (!unit) continue;
    // Up over the comments and decorators directly above (not past a blank line).
    std::size_t first = i;
    while (first > 0 && indent_of(lines[first - 1].text) != std::string_view::npos &&
           leads_in(trimmed(lines[first - 1].text))) {
      --first;
    }
    if (first == 0) continue;
    const std::size_t at = lines[first].begin;
    if (starts.empty() || starts.back() < at) starts.push_back(at);
  }
  return starts;
}

}  // namespace sieve::search
