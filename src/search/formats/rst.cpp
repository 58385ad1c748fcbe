// reStructuredText (.rst): read as the text it is, with its markup lines (section adornments, comments,
// directives' markers) left out and the document title taken from the first section title.
#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/text_util.hpp"

namespace sieve::search {
namespace {
namespace rst_reader {

// A line of one punctuation character repeated (at least three): a section adornment or a transition.
bool adornment(std::string_view line) {
  line = text::trim(line);
  if (line.size() < 3) return false;
  const char c = line.front();
  if (std::string_view("=-`:'\"~^_*+#<>.").find(c) == std::string_view::npos) return false;
  return line.find_first_not_of(c) == std::string_view::npos;
}

// Directives whose argument is prose (".. note:: Be careful."), not a name or a language.
bool admonition(std::string_view directive) {
  for (const std::string_view name :
       {"note", "warning", "tip", "important", "caution", "danger", "attention", "hint", "error", "admonition",
        "seealso", "deprecated", "versionadded", "versionchanged", "topic", "sidebar", "rubric"}) {
    if (directive == name) return true;
  }
  return false;
}

void extract_rst(const ExtractInput& input, ExtractContext& /*context*/, std::vector<ExtractedDocument>& out) {
  ExtractedDocument doc;
  doc.key = input.key;
  std::string body;
  std::string_view previous;
  bool previous_kept = false;
  for (std::size_t pos = 0; pos < input.bytes.size();) {
    const text::Line line = text::line_at(input.bytes, pos);
    pos = line.next;
    if (adornment(line.text)) {
      // An underline: the line above was a title.
      if (doc.title.empty() && previous_kept && !text::trim(previous).empty()) {
        doc.title = std::string(text::trim(previous));
      }
      previous = {};
      previous_kept = false;
      continue;
    }
    const std::string_view trimmed = text::trim(line.text);
    // ".. comment", ".. _target:", ".. |sub| image::" and the marker line of a directive; its indented content
    // follows on lines of its own and is kept.
    if (line.text.starts_with("..") && (trimmed.size() == 2 || (line.text.size() > 2 && line.text[2] == ' '))) {
      const std::size_t marker = trimmed.find("::");
      if (marker != std::string_view::npos && marker + 2 < trimmed.size() &&
          admonition(trimmed.substr(3, marker - 3))) {
        body.append(text::trim(trimmed.substr(marker + 2)));  // ".. note:: text" keeps "text"
        body += '\n';
      }
      previous = {};
      previous_kept = false;
      continue;
    }
    body.append(line.text);
    body += '\n';
    previous = line.text;
    previous_kept = true;
  }
  // Lines left out leave runs of blank lines: one blank line is enough.
  std::string text;
  for (const char c : text::trim(body)) {
    if (c == '\n' && text.ends_with("\n\n")) continue;
    text += c;
  }
  doc.text = std::move(text);
  out.push_back(std::move(doc));
}

}  // namespace rst_reader
}  // namespace

const FileFormat kRstFormat{
    .name = "rst",
    .label = "reStructuredText",
    .extensions = {".rst", ".rest"},
    .sniff = nullptr,
    .text_input = true,
    .binary = false,
    .extract = rst_reader::extract_rst,
};
}  // namespace sieve::search
