#pragma once

// Every file format Sieve reads, and how a file's format is decided.

#include <string>
#include <string_view>
#include <vector>

#include "search/formats/format.hpp"

namespace sieve::search {

// One per file under src/search/formats/.
extern const FileFormat kTextFormat;
extern const FileFormat kMarkdownFormat;
extern const FileFormat kHtmlFormat;
extern const FileFormat kJsonlFormat;
extern const FileFormat kManFormat;
extern const FileFormat kRstFormat;
extern const FileFormat kAsciiDocFormat;
extern const FileFormat kSourceCodeFormat;
extern const FileFormat kGzipFormat;
extern const FileFormat kBzip2Format;
extern const FileFormat kXzFormat;
extern const FileFormat kZipFormat;
extern const FileFormat kTarFormat;
extern const FileFormat kPdfFormat;
extern const FileFormat kMboxFormat;
extern const FileFormat kEmailFormat;
extern const FileFormat kEpubFormat;
extern const FileFormat kOdtFormat;
extern const FileFormat kOdsFormat;
extern const FileFormat kOdpFormat;
extern const FileFormat kDocxFormat;
extern const FileFormat kXlsxFormat;
extern const FileFormat kPptxFormat;

// In the order detection tries their signatures.
const std::vector<const FileFormat*>& file_formats();
// nullptr when no format has this name.
const FileFormat* format_named(std::string_view name);
// By the file name's ending alone (longest first, case-insensitive); nullptr when none matches.
const FileFormat* format_for_name(std::string_view file_name);

struct Detection {
  const FileFormat* format = nullptr;  // nullptr: not read
  std::string skip_reason;             // when not read: "binary file", "empty file"
};

// Decides a file's format from its name and first bytes (kSniffBytes of them): a signature in the content
// (PDF, ZIP, gzip...) wins over a name that says text; a known ending decides among the rest; a file with
// neither is read as text unless it looks binary.
Detection detect_format(std::string_view file_name, std::string_view head);

}  // namespace sieve::search
