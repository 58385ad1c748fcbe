#pragma once

// The contract between Sieve's indexer and the readers of each file format.
// One file per format under src/search/formats/ defines a `FileFormat`, and
// formats.cpp lists it; docs/development.md ("Adding a file format") has the
// checklist.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sieve::search {

// Where a part of a document starts in its text: a page, slide, sheet,
// chapter or attachment. A byte of the text belongs to the last section that
// starts at or before it.
struct Section {
  std::size_t begin = 0;  // byte offset in ExtractedDocument::text
  std::string label;      // "page 3", "slide 2", "sheet Budget", "chapter 4"
};

struct ExtractedDocument {
  std::string key;    // document id: the file's key, "archive!inner/path" for a member, or a JSONL record's "id"
  std::string title;  // "" when the format has none
  std::string text;   // valid UTF-8; what gets chunked and embedded
  std::vector<std::pair<std::string, std::string>> metadata;  // sorted by key, keys unique
  std::vector<Section> sections;                              // ascending begin; empty for one-part documents
  // Where the text's own units begin (ascending byte offsets: functions and classes in source code), for the
  // chunker to end its windows at; empty for prose.
  std::vector<std::size_t> breaks;
  // The name of the format that read it ("pdf", "text"); set by the run, not by the reader.
  std::string format;
};

// Bounds on what one file may expand to: compressed files, archives and
// containers are refused past them (a "zip bomb"), and nesting stops.
struct ExtractLimits {
  std::uint64_t max_expanded_bytes = std::uint64_t{256} << 20;  // everything one file expands to, together
  std::uint64_t max_ratio = 200;      // expanded bytes per compressed byte, beyond the first 16 MiB
  std::size_t max_members = 10000;    // files in one archive
  int max_depth = 4;                  // archives within archives (and attachments within e-mail)
  std::size_t max_cells = 5'000'000;  // spreadsheet cells with text in one file; the rest are left out
};

class ExtractContext;

// One input handed to a format: a file, a member of an archive, an attachment.
inline constexpr std::size_t kSniffBytes = 8192;

struct ExtractInput {
  std::string_view bytes;
  std::string name;  // the file name as found (its extension matters), without folders
  std::string key;   // the document key of what is read from it
};

struct FileFormat {
  std::string_view name;   // shown in summaries: "pdf", "text", "gzip"
  std::string_view label;  // for people: "PDF", "plain text", "gzip-compressed file"
  // Lower-case file name endings that select this format (".pdf", ".tar.gz"), checked longest first; an entry
  // without a leading dot is a whole file name ("makefile").
  std::vector<std::string_view> extensions;
  // Whether the content is this format whatever the name says (magic bytes, a header line); nullptr: by name
  // only. `head` is the file's first bytes (up to kSniffBytes).
  bool (*sniff)(std::string_view head) = nullptr;
  // Text formats get their input decoded to UTF-8 first (a byte order mark honoured, UTF-16 converted, a
  // file that is not UTF-8 read as Windows-1252 with a warning); the others get the bytes as they are.
  bool text_input = false;
  // Its signature is binary (a container or compressed stream): it outranks a file name that says text.
  bool binary = false;
  // Appends the documents read; throws sieve::Error for input it cannot read (the message need not name the
  // file: the caller adds it).
  void (*extract)(const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) = nullptr;
};

// What a format may ask of the run: its limits, warnings, and reading what it
// holds (archive members, attachments) as files of their own.
class ExtractContext {
 public:
  // `source_bytes`: the size of the file as stored, against which expansion is measured.
  ExtractContext(const ExtractLimits& limits, std::uint64_t source_bytes)
      : limits_(limits), source_bytes_(source_bytes) {}

  [[nodiscard]] const ExtractLimits& limits() const { return limits_; }
  [[nodiscard]] int depth() const { return depth_; }

  // Something read in a way the user should know of (a guessed encoding, a
  // member left out): "key: what".
  void warn(const std::string& key, const std::string& what) { warnings_.push_back(key + ": " + what); }
  // A part that could not be read while the rest was: "key: what".
  void fail(const std::string& key, const std::string& what) { errors_.push_back(key + ": " + what); }

  // Counts bytes a compressed file or archive expanded to against the file's limits (in all, and per byte
  // stored); throws sieve::Error (kInvalidInput) past them.
  void account_expanded(std::uint64_t bytes);

  // Reads a member or attachment by its name and content, one level deeper;
  // past the nesting limit it is left out with a warning.
  void read_nested(const ExtractInput& input, std::vector<ExtractedDocument>& out);

  // A member left out without a warning (a binary file in an archive), counted by reason.
  void skip(const std::string& reason) { ++skipped_[reason]; }

  [[nodiscard]] const std::vector<std::string>& warnings() const { return warnings_; }
  [[nodiscard]] const std::map<std::string, std::size_t>& skipped() const { return skipped_; }
  [[nodiscard]] const std::vector<std::string>& errors() const { return errors_; }

 private:
  ExtractLimits limits_;
  std::uint64_t source_bytes_;
  int depth_ = 0;
  std::uint64_t expanded_ = 0;
  std::vector<std::string> warnings_;
  std::vector<std::string> errors_;
  std::map<std::string, std::size_t> skipped_;
  bool exhausted_ = false;
};

}  // namespace sieve::search
