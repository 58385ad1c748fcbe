#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sieve::search {

enum class SourceFormat { kText, kMarkdown, kHtml, kJsonl };

// By extension, case-insensitive: .txt .text -> kText; .md .markdown -> kMarkdown; .html .htm .xhtml -> kHtml;
// .jsonl .ndjson -> kJsonl; else nullopt.
std::optional<SourceFormat> format_for_path(const std::filesystem::path& path);

struct ExtractedDocument {
  std::string key;    // document id: for files the source key given; for JSONL the record's "id"
  std::string title;  // <title> or first <h1> for HTML; first ATX/setext level-1 heading for Markdown; "" otherwise
  std::string text;   // the text that gets chunked and embedded (valid UTF-8)
  std::vector<std::pair<std::string, std::string>> metadata;  // sorted by key, keys unique
};

// `source_key` names the file in errors and is the key of a non-JSONL document.
// Errors: sieve::Error with ErrorCode::kParse for malformed JSONL ("<source_key> line N: ...") and
// ErrorCode::kInvalidInput for text that is not valid UTF-8 ("<source_key>: invalid UTF-8 at byte N", with the
// line for JSONL). A UTF-8 byte order mark at the start is dropped for every format, and U+0000 in text, title
// and metadata values becomes U+FFFD (an "id" or metadata name holding one is an error).
//
// Markdown front matter (a leading `---` block of `key: value` lines) becomes metadata, and its `title:` wins
// over the first heading. An HTML document is read as UTF-8 unless it declares another charset.
std::vector<ExtractedDocument> extract_documents(std::string_view content, SourceFormat format,
                                                 const std::string& source_key);

// Visible text of an HTML document, block elements on lines of their own; `title` gets <title>, else the first
// <h1>, else "". Invalid UTF-8 throws kInvalidInput.
std::string html_to_text(std::string_view html, std::string* title = nullptr);

// Plain text of a CommonMark document, blocks separated by a blank line, front matter dropped; `title` gets the
// front matter's title, else the first level-1 heading, else "". Invalid UTF-8 throws kInvalidInput.
std::string markdown_to_text(std::string_view markdown, std::string* title = nullptr);

}  // namespace sieve::search
