// Archives: ZIP and tar (plain or compressed) through libarchive. Each file inside is read by its own format
// as a document named "archive!inner/path"; nested archives are read too, down to the nesting limit, and the
// whole archive within the file's expansion limits.
#include "search/formats/archive_reader.hpp"
#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"

namespace sieve::search {
namespace {
namespace archive_format {

void extract(const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) {
  archive::for_each_member(input.bytes, archive::Kind::kArchive, context, input.key,
                           [&](const std::string& path, std::string data) {
                             const std::size_t slash = path.find_last_of('/');
                             const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
                             context.read_nested({data, name, input.key + "!" + path}, out);
                           });
}

// A local file header, or the end of an empty archive.
bool sniff_zip(std::string_view head) {
  return head.starts_with("PK\x03\x04") || head.starts_with("PK\x05\x06");
}

// POSIX and GNU tar put "ustar" at offset 257 of the first header.
bool sniff_tar(std::string_view head) {
  return head.size() >= 262 && head.substr(257, 5) == "ustar";
}

}  // namespace archive_format
}  // namespace

const FileFormat kZipFormat{
    .name = "zip",
    .label = "ZIP archive",
    .extensions = {".zip"},
    .sniff = archive_format::sniff_zip,
    .text_input = false,
    .binary = true,
    .extract = archive_format::extract,
};

const FileFormat kTarFormat{
    .name = "tar",
    .label = "tar archive",
    .extensions = {".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tbz", ".tar.xz", ".txz"},
    .sniff = archive_format::sniff_tar,
    .text_input = false,
    .binary = true,
    .extract = archive_format::extract,
};

}  // namespace sieve::search
