#pragma once

// Fixtures for the tests of ZIP-based formats (Office, OpenDocument, EPUB): ZIP files written in memory with
// libarchive, and the formats run on them as the indexer runs them.

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "search/formats/format.hpp"
#include "search/formats/text_util.hpp"
#include "sieve/error.hpp"

namespace sieve::search::zip_fixture {

struct Member {
  std::string path;
  std::string data;
  // Stored uncompressed, as OpenDocument and EPUB require of their first member, "mimetype".
  bool stored = false;
  // Written after `data`: this many zero bytes (a compression bomb), without holding them in memory.
  std::size_t zeros = 0;
};

struct WriterDeleter {
  void operator()(struct archive* a) const { archive_write_free(a); }
};
struct EntryDeleter {
  void operator()(struct archive_entry* e) const { archive_entry_free(e); }
};

inline la_ssize_t append_to_string(struct archive* /*a*/, void* sink, const void* buffer, std::size_t length) {
  static_cast<std::string*>(sink)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

// A ZIP file holding `members` in this order. (libarchive adds an extra field to each local header, which the
// formats' own writers leave out; the signatures allow for it.)
inline std::string zip(const std::vector<Member>& members) {
  std::string out;
  const std::unique_ptr<struct archive, WriterDeleter> writer(archive_write_new());
  EXPECT_EQ(archive_write_set_format_zip(writer.get()), ARCHIVE_OK);
  EXPECT_EQ(archive_write_open(writer.get(), &out, nullptr, append_to_string, nullptr), ARCHIVE_OK);
  for (const Member& member : members) {
    // Compression is chosen per member (archive_write_set_format_option only works before the archive opens).
    if (member.stored) {
      archive_write_zip_set_compression_store(writer.get());
    } else {
      archive_write_zip_set_compression_deflate(writer.get());
    }
    const std::unique_ptr<struct archive_entry, EntryDeleter> entry(archive_entry_new());
    archive_entry_set_pathname(entry.get(), member.path.c_str());
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(member.data.size() + member.zeros));
    EXPECT_EQ(archive_write_header(writer.get(), entry.get()), ARCHIVE_OK) << archive_error_string(writer.get());
    if (!member.data.empty()) archive_write_data(writer.get(), member.data.data(), member.data.size());
    const std::string zeros(std::size_t{1} << 20, '\0');
    for (std::size_t left = member.zeros; left > 0;) {
      const std::size_t chunk = std::min(left, zeros.size());
      archive_write_data(writer.get(), zeros.data(), chunk);
      left -= chunk;
    }
  }
  EXPECT_EQ(archive_write_close(writer.get()), ARCHIVE_OK);
  return out;
}

// What a format made of a file: its documents (finished as the indexer finishes them), warnings and errors.
struct Result {
  std::vector<ExtractedDocument> documents;
  std::vector<std::string> warnings;
  std::vector<std::string> errors;

  // The one document; fails the test when there is not exactly one.
  [[nodiscard]] const ExtractedDocument& document() const {
    static const ExtractedDocument kNone;
    EXPECT_EQ(documents.size(), 1U);
    return documents.empty() ? kNone : documents.front();
  }
};

inline Result extract(const FileFormat& format, std::string_view bytes, const std::string& name,
                      const ExtractLimits& limits = {}) {
  Result result;
  ExtractContext context(limits, bytes.size());
  format.extract({bytes, name, "/x/" + name}, context, result.documents);
  for (auto& doc : result.documents) text::finish_document(doc, doc.key);
  result.warnings = context.warnings();
  result.errors = context.errors();
  return result;
}

// The error a format throws for a file, checked for its code.
inline std::string error_of(const FileFormat& format, std::string_view bytes, const std::string& name, ErrorCode code,
                            const ExtractLimits& limits = {}) {
  try {
    extract(format, bytes, name, limits);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error from " << format.name << " for " << name;
  return {};
}

// The text of a document's section with this label: from its begin to the next section's; "" (and a failure)
// when there is no such section.
inline std::string section_text(const ExtractedDocument& doc, std::string_view label) {
  for (std::size_t i = 0; i < doc.sections.size(); ++i) {
    if (doc.sections[i].label != label) continue;
    const std::size_t end = i + 1 < doc.sections.size() ? doc.sections[i + 1].begin : doc.text.size();
    return doc.text.substr(doc.sections[i].begin, end - doc.sections[i].begin);
  }
  ADD_FAILURE() << "no section " << label;
  return {};
}

inline std::vector<std::string> labels(const ExtractedDocument& doc) {
  std::vector<std::string> out;
  for (const Section& section : doc.sections) out.push_back(section.label);
  return out;
}

inline std::string metadata(const ExtractedDocument& doc, std::string_view key) {
  for (const auto& [name, value] : doc.metadata) {
    if (name == key) return value;
  }
  return {};
}

// `open` nested `depth` times around `inner`, then closed: XML deeper than any real document.
inline std::string nested(std::string_view open, std::string_view close, std::size_t depth, std::string_view inner) {
  std::string out;
  out.reserve((open.size() + close.size()) * depth + inner.size());
  for (std::size_t i = 0; i < depth; ++i) out += open;
  out += inner;
  for (std::size_t i = 0; i < depth; ++i) out += close;
  return out;
}

}  // namespace sieve::search::zip_fixture
