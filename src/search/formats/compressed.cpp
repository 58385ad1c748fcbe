// Compressed files: gzip (.gz), bzip2 (.bz2) and xz (.xz, .lzma) through libarchive. The content is read as
// the file it was before compression (changelog.Debian.gz as text, manual.pdf.gz as PDF), under the same key,
// within the file's expansion limits.
#include "search/formats/archive_reader.hpp"
#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/text_util.hpp"

namespace sieve::search {
namespace {
namespace compressed_reader {

// The name the file had before it was compressed: "changelog.Debian.gz" -> "changelog.Debian".
std::string inner_name(const std::string& name) {
  const std::string lower = text::lowercase(name);
  for (const std::string_view ending : {".gz", ".bz2", ".xz", ".lzma"}) {
    if (lower.size() > ending.size() && lower.ends_with(ending)) return name.substr(0, name.size() - ending.size());
  }
  return name;
}

void extract(const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) {
  std::string content = archive::decompress(input.bytes, context, input.key);
  context.read_nested({content, inner_name(input.name), input.key}, out);
}

bool sniff_gzip(std::string_view head) {
  return head.starts_with("\x1F\x8B");
}
bool sniff_bzip2(std::string_view head) {
  return head.size() >= 4 && head.starts_with("BZh") && head[3] >= '1' && head[3] <= '9';
}
bool sniff_xz(std::string_view head) {
  return head.starts_with(
      std::string_view("\xFD"
                       "7zXZ\0",
                       6));
}

}  // namespace compressed_reader
}  // namespace

const FileFormat kGzipFormat{
    .name = "gzip",
    .label = "gzip-compressed file",
    .extensions = {".gz"},
    .sniff = compressed_reader::sniff_gzip,
    .text_input = false,
    .binary = true,
    .extract = compressed_reader::extract,
};

const FileFormat kBzip2Format{
    .name = "bzip2",
    .label = "bzip2-compressed file",
    .extensions = {".bz2"},
    .sniff = compressed_reader::sniff_bzip2,
    .text_input = false,
    .binary = true,
    .extract = compressed_reader::extract,
};

const FileFormat kXzFormat{
    .name = "xz",
    .label = "xz-compressed file",
    .extensions = {".xz", ".lzma"},
    .sniff = compressed_reader::sniff_xz,
    .text_input = false,
    .binary = true,
    .extract = compressed_reader::extract,
};

}  // namespace sieve::search
