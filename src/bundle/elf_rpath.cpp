#include "bundle/elf_rpath.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <vector>

#include "sieve/error.hpp"

namespace sieve::bundle {
namespace {

struct ElfImage {
  std::filesystem::path file;
  std::vector<char> bytes;

  template <typename T>
  [[nodiscard]] T read(std::uint64_t offset) const {
    if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) fail("truncated (a header points past the end)");
    T value;
    std::memcpy(&value, bytes.data() + offset, sizeof(T));
    return value;
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw Error(ErrorCode::kParse, file.string() + ": not a usable ELF file: " + why);
  }
};

ElfImage load(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(ErrorCode::kNotFound, file.string() + ": cannot open");
  ElfImage image{file, std::vector<char>(std::istreambuf_iterator<char>(in), {})};
  const auto header = image.read<Elf64_Ehdr>(0);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) image.fail("no ELF magic number");
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB)
    image.fail("only 64-bit little-endian files are supported");
  if (header.e_phentsize != sizeof(Elf64_Phdr)) image.fail("unexpected program header size");
  return image;
}

// Where the rpath string lives in the file, and the dynamic entry naming it.
struct RpathLocation {
  std::uint64_t entry_offset = 0;   // of the Elf64_Dyn
  std::uint64_t string_offset = 0;  // of the string, in the file
  std::size_t length = 0;
};

std::optional<RpathLocation> locate_rpath(const ElfImage& image) {
  const auto header = image.read<Elf64_Ehdr>(0);
  std::vector<Elf64_Phdr> segments;
  for (std::uint64_t i = 0; i < header.e_phnum; ++i)
    segments.push_back(image.read<Elf64_Phdr>(header.e_phoff + i * sizeof(Elf64_Phdr)));
  const auto dynamic =
      std::find_if(segments.begin(), segments.end(), [](const Elf64_Phdr& s) { return s.p_type == PT_DYNAMIC; });
  if (dynamic == segments.end()) image.fail("no dynamic section (a static executable?)");

  std::optional<std::uint64_t> strtab_address;
  std::optional<std::uint64_t> strtab_size;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> rpath;  // entry offset, string index
  for (std::uint64_t offset = dynamic->p_offset; offset + sizeof(Elf64_Dyn) <= dynamic->p_offset + dynamic->p_filesz;
       offset += sizeof(Elf64_Dyn)) {
    const auto entry = image.read<Elf64_Dyn>(offset);
    if (entry.d_tag == DT_NULL) break;
    if (entry.d_tag == DT_STRTAB) strtab_address = entry.d_un.d_ptr;
    if (entry.d_tag == DT_STRSZ) strtab_size = entry.d_un.d_val;
    if (entry.d_tag == DT_RPATH || entry.d_tag == DT_RUNPATH) rpath = {{offset, entry.d_un.d_val}};
  }
  if (!rpath) return std::nullopt;
  if (!strtab_address || !strtab_size) image.fail("dynamic section without a string table");

  // DT_STRTAB is a virtual address: find the loaded segment holding it.
  const auto holder = std::find_if(segments.begin(), segments.end(), [&](const Elf64_Phdr& s) {
    return s.p_type == PT_LOAD && *strtab_address >= s.p_vaddr && *strtab_address - s.p_vaddr < s.p_filesz;
  });
  if (holder == segments.end()) image.fail("the string table is outside every loaded segment");
  const std::uint64_t strtab_offset = *strtab_address - holder->p_vaddr + holder->p_offset;
  if (rpath->second >= *strtab_size) image.fail("the rpath points outside the string table");

  RpathLocation location{rpath->first, strtab_offset + rpath->second, 0};
  const std::uint64_t limit = std::min<std::uint64_t>(strtab_offset + *strtab_size, image.bytes.size());
  while (location.string_offset + location.length < limit && image.bytes[location.string_offset + location.length] != 0)
    ++location.length;
  if (location.string_offset + location.length >= limit) image.fail("the rpath string is not terminated");
  return location;
}

}  // namespace

std::optional<std::string> read_rpath(const std::filesystem::path& elf_file) {
  const ElfImage image = load(elf_file);
  const auto location = locate_rpath(image);
  if (!location) return std::nullopt;
  return std::string(image.bytes.data() + location->string_offset, location->length);
}

void replace_rpath(const std::filesystem::path& elf_file, std::string_view rpath) {
  ElfImage image = load(elf_file);
  const auto location = locate_rpath(image);
  if (!location) {
    throw Error(ErrorCode::kUnsupported,
                elf_file.string() + ": has no rpath to replace (build it with one, as CMakeLists.txt does for sieve)");
  }
  if (rpath.size() > location->length) {
    throw Error(ErrorCode::kUnsupported, elf_file.string() + ": its rpath (" + std::to_string(location->length) +
                                             " bytes) is too short to hold \"" + std::string(rpath) + "\"");
  }
  // The string shrinks in place; the rest of its old bytes become NULs, which
  // the loader never reads past the new terminator.
  std::fill_n(image.bytes.begin() + static_cast<std::ptrdiff_t>(location->string_offset), location->length + 1, '\0');
  std::copy(rpath.begin(), rpath.end(), image.bytes.begin() + static_cast<std::ptrdiff_t>(location->string_offset));
  auto entry = image.read<Elf64_Dyn>(location->entry_offset);
  entry.d_tag = DT_RPATH;
  std::memcpy(image.bytes.data() + location->entry_offset, &entry, sizeof entry);

  const auto temporary = std::filesystem::path(elf_file.string() + ".rpath-tmp");
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(image.bytes.data(), static_cast<std::streamsize>(image.bytes.size()));
    if (!out.flush()) throw Error(ErrorCode::kRuntime, temporary.string() + ": cannot write");
  }
  std::filesystem::permissions(temporary, std::filesystem::status(elf_file).permissions());
  std::filesystem::rename(temporary, elf_file);
}

}  // namespace sieve::bundle
