#pragma once

// libarchive for the formats that are archives or compressed (ZIP, tar,
// gzip, bzip2, xz) and the ones built on ZIP (Office, OpenDocument, EPUB):
// members read into memory within the file's limits.

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "search/formats/format.hpp"

namespace sieve::search::archive {

enum class Kind {
  kArchive,     // ZIP or tar (compressed or not): its files
  kCompressed,  // one gzip, bzip2 or xz stream: its content
};

// Calls on_member(path, data) for each regular file of the archive, in the order stored; folders, links and
// devices are passed over. Every byte read counts against `context`'s limits, and so does the number of
// members. An encrypted member is reported (context.fail) and passed over. A damaged archive throws
// sieve::Error (kParse) naming `where`, after the members read before the damage.
void for_each_member(std::string_view bytes, Kind kind, ExtractContext& context, const std::string& where,
                     const std::function<void(const std::string& path, std::string data)>& on_member);

// The content of a gzip, bzip2 or xz stream.
std::string decompress(std::string_view bytes, ExtractContext& context, const std::string& where);

// Every member of a ZIP container by path (Office, OpenDocument and EPUB files).
std::map<std::string, std::string> read_all(std::string_view bytes, ExtractContext& context, const std::string& where);

}  // namespace sieve::search::archive
