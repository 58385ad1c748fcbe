#include "search/formats/archive_reader.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <array>
#include <memory>

#include "sieve/error.hpp"

namespace sieve::search::archive {
namespace {

struct ReaderDeleter {
  void operator()(struct archive* a) const { archive_read_free(a); }
};
using ReaderPtr = std::unique_ptr<struct archive, ReaderDeleter>;

std::string message_of(struct archive* a) {
  const char* text = archive_error_string(a);
  return text != nullptr ? text : "damaged or not in a format Sieve reads";
}

ReaderPtr open_reader(std::string_view bytes, Kind kind, const std::string& where) {
  ReaderPtr reader(archive_read_new());
  if (!reader) throw Error(ErrorCode::kRuntime, "out of memory opening " + where);
  archive_read_support_filter_gzip(reader.get());
  archive_read_support_filter_bzip2(reader.get());
  archive_read_support_filter_xz(reader.get());
  archive_read_support_filter_lzma(reader.get());
  if (kind == Kind::kArchive) {
    archive_read_support_format_zip(reader.get());
    archive_read_support_format_tar(reader.get());
    archive_read_support_format_gnutar(reader.get());
  } else {
    archive_read_support_format_raw(reader.get());
  }
  if (archive_read_open_memory(reader.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) {
    throw Error(ErrorCode::kParse, where + ": " + message_of(reader.get()));
  }
  return reader;
}

// The current entry's data, counted against the limits as it is read.
std::string read_data(struct archive* reader, ExtractContext& context, const std::string& where) {
  std::string data;
  std::array<char, 1 << 16> buffer{};
  while (true) {
    const la_ssize_t got = archive_read_data(reader, buffer.data(), buffer.size());
    if (got == 0) break;
    if (got < 0) throw Error(ErrorCode::kParse, where + ": " + message_of(reader));
    context.account_expanded(static_cast<std::uint64_t>(got));
    data.append(buffer.data(), static_cast<std::size_t>(got));
  }
  return data;
}

}  // namespace

void for_each_member(std::string_view bytes, Kind kind, ExtractContext& context, const std::string& where,
                     const std::function<void(const std::string& path, std::string data)>& on_member) {
  const ReaderPtr reader = open_reader(bytes, kind, where);
  std::size_t members = 0;
  while (true) {
    struct archive_entry* entry = nullptr;
    const int status = archive_read_next_header(reader.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status == ARCHIVE_FATAL) throw Error(ErrorCode::kParse, where + ": " + message_of(reader.get()));
    // ARCHIVE_WARN (an unknown extension header, say) still gives a usable entry.
    const char* path_text = archive_entry_pathname_utf8(entry);
    if (path_text == nullptr) path_text = archive_entry_pathname(entry);
    const std::string path = path_text != nullptr ? path_text : "";
    if (kind == Kind::kArchive && archive_entry_filetype(entry) != AE_IFREG) continue;
    if (++members > context.limits().max_members) {
      throw Error(ErrorCode::kInvalidInput, where + ": more than " + std::to_string(context.limits().max_members) +
                                                " files in one archive: not read");
    }
    if (archive_entry_is_encrypted(entry) != 0) {
      context.fail(where + "!" + path, "encrypted: not read");
      continue;
    }
    on_member(path, read_data(reader.get(), context, where + "!" + path));
  }
}

std::string decompress(std::string_view bytes, ExtractContext& context, const std::string& where) {
  const ReaderPtr reader = open_reader(bytes, Kind::kCompressed, where);
  struct archive_entry* entry = nullptr;
  const int status = archive_read_next_header(reader.get(), &entry);
  if (status == ARCHIVE_EOF) return {};
  if (status == ARCHIVE_FATAL) throw Error(ErrorCode::kParse, where + ": " + message_of(reader.get()));
  // Without a decompression filter in use (filter 0 reads the bytes as they are), the signature lied.
  if (archive_filter_count(reader.get()) < 2) {
    throw Error(ErrorCode::kParse, where + ": not a valid gzip, bzip2 or xz stream");
  }
  return read_data(reader.get(), context, where);
}

std::map<std::string, std::string> read_all(std::string_view bytes, ExtractContext& context, const std::string& where) {
  std::map<std::string, std::string> members;
  for_each_member(bytes, Kind::kArchive, context, where,
                  [&members](const std::string& path, std::string data) { members[path] = std::move(data); });
  return members;
}

}  // namespace sieve::search::archive
