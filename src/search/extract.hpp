#pragma once

// Reading a file into documents: its format decided from its name and
// content (src/search/formats/formats.hpp), then that format's reader.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "search/formats/format.hpp"

namespace sieve::search {

struct Extraction {
  const FileFormat* format = nullptr;  // nullptr: the file is not read (skip_reason says why)
  std::string skip_reason;
  std::vector<ExtractedDocument> documents;
  std::vector<std::string> warnings;           // "key: what": read, but the user should know how
  std::vector<std::string> errors;             // "key: what": parts (archive members) not read
  std::map<std::string, std::size_t> skipped;  // members left out quietly, by reason
};

// Reads one file. `file_name` is its name (the ending counts); `key` names its documents. Throws sieve::Error
// when the file cannot be read at all (malformed JSONL, an encrypted PDF, a compression bomb); the message
// need not name the file.
Extraction extract_file(std::string_view bytes, const std::string& file_name, const std::string& key,
                        const ExtractLimits& limits = {});

// Reads content as the named format ("text", "markdown", "html", "jsonl", ...).
std::vector<ExtractedDocument> extract_documents(std::string_view content, std::string_view format,
                                                 const std::string& key);

// Visible text of an HTML document, block elements on lines of their own; `title` gets <title>, else the first
// <h1>, else "".
std::string html_to_text(std::string_view html, std::string* title = nullptr);

// Plain text of a CommonMark document, blocks separated by a blank line, front matter dropped; `title` gets the
// front matter's title, else the first level-1 heading, else "". Invalid UTF-8 throws kInvalidInput.
std::string markdown_to_text(std::string_view markdown, std::string* title = nullptr);

}  // namespace sieve::search
