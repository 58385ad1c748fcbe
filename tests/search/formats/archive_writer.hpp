#pragma once

// Archives and compressed files for tests, written in memory with libarchive.

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sieve::search::testing {

enum class ArchiveKind { kZip, kTar, kTarGz, kGzip, kBzip2, kXz };

struct Member {
  std::string path;
  std::string data;
  bool stored = false;  // ZIP: without compression (an OpenDocument or EPUB "mimetype")
};

// The bytes of an archive holding `members` (one member, its path ignored, for the compressed kinds).
inline std::string write_archive(ArchiveKind kind, const std::vector<Member>& members) {
  struct Deleter {
    void operator()(struct archive* a) const { archive_write_free(a); }
  };
  struct EntryDeleter {
    void operator()(struct archive_entry* e) const { archive_entry_free(e); }
  };
  const std::unique_ptr<struct archive, Deleter> writer(archive_write_new());
  struct archive* a = writer.get();
  switch (kind) {
    case ArchiveKind::kZip: archive_write_set_format_zip(a); break;
    case ArchiveKind::kTar: archive_write_set_format_pax_restricted(a); break;
    case ArchiveKind::kTarGz:
      archive_write_set_format_pax_restricted(a);
      archive_write_add_filter_gzip(a);
      break;
    case ArchiveKind::kGzip:
      archive_write_set_format_raw(a);
      archive_write_add_filter_gzip(a);
      break;
    case ArchiveKind::kBzip2:
      archive_write_set_format_raw(a);
      archive_write_add_filter_bzip2(a);
      break;
    case ArchiveKind::kXz:
      archive_write_set_format_raw(a);
      archive_write_add_filter_xz(a);
      break;
  }
  std::size_t capacity = 1 << 20;
  for (const auto& m : members) capacity += m.data.size() + m.path.size() + 1024;
  std::string buffer(capacity, '\0');
  std::size_t used = 0;
  if (archive_write_open_memory(a, buffer.data(), buffer.size(), &used) != ARCHIVE_OK) {
    throw std::runtime_error(archive_error_string(a));
  }
  for (const auto& m : members) {
    if (kind == ArchiveKind::kZip) {
      if (m.stored) {
        archive_write_zip_set_compression_store(a);
      } else {
        archive_write_zip_set_compression_deflate(a);
      }
    }
    const std::unique_ptr<struct archive_entry, EntryDeleter> entry(archive_entry_new());
    archive_entry_set_pathname(entry.get(), m.path.c_str());
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(m.data.size()));
    if (archive_write_header(a, entry.get()) != ARCHIVE_OK) throw std::runtime_error(archive_error_string(a));
    if (archive_write_data(a, m.data.data(), m.data.size()) < 0) throw std::runtime_error(archive_error_string(a));
  }
  if (archive_write_close(a) != ARCHIVE_OK) throw std::runtime_error(archive_error_string(a));
  buffer.resize(used);
  return buffer;
}

}  // namespace sieve::search::testing
