// AsciiDoc (.adoc): read as the text it is, with the document header's attribute entries as metadata, the
// "= Title" line as the title, and comments and block delimiters left out.
#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/text_util.hpp"

namespace sieve::search {
namespace {
namespace asciidoc_reader {

// A block delimiter: "----", "====", "....", "****", "____", "++++", "////" (four or more of one character).
bool delimiter(std::string_view line) {
  if (line.size() < 4) return false;
  const char c = line.front();
  if (std::string_view("-=.*_+/").find(c) == std::string_view::npos) return false;
  return line.find_first_not_of(c) == std::string_view::npos;
}

void extract(const ExtractInput& input, ExtractContext& /*context*/, std::vector<ExtractedDocument>& out) {
  ExtractedDocument doc;
  doc.key = input.key;
  std::string body;
  bool header = true;  // the document header: title and attribute entries, up to the first blank line
  for (std::size_t pos = 0; pos < input.bytes.size();) {
    const text::Line line = text::line_at(input.bytes, pos);
    pos = line.next;
    const std::string_view trimmed = text::trim(line.text);
    if (header && doc.title.empty() && body.empty() && line.text.starts_with("= ")) {
      doc.title = std::string(text::trim(line.text.substr(2)));
      continue;
    }
    if (trimmed.empty()) header = false;
    if (header && line.text.starts_with(':')) {
      // ":author: Name" in the header becomes metadata.
      const std::size_t colon = line.text.find(':', 1);
      if (colon != std::string_view::npos && colon > 1) {
        doc.metadata.emplace_back(std::string(line.text.substr(1, colon - 1)),
                                  std::string(text::trim(line.text.substr(colon + 1))));
      }
      continue;
    }
    // Comments and block delimiters.
    if (line.text.starts_with("//") || delimiter(trimmed)) continue;
    body.append(line.text);
    body += '\n';
  }
  doc.text = std::string(text::trim(body));
  out.push_back(std::move(doc));
}

}  // namespace asciidoc_reader
}  // namespace

const FileFormat kAsciiDocFormat{
    .name = "asciidoc",
    .label = "AsciiDoc",
    .extensions = {".adoc", ".asciidoc"},
    .sniff = nullptr,
    .text_input = true,
    .binary = false,
    .extract = asciidoc_reader::extract,
};

}  // namespace sieve::search
