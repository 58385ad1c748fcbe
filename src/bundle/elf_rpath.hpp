#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace sieve::bundle {

// The DT_RPATH or DT_RUNPATH string of a 64-bit little-endian ELF file, if any.
std::optional<std::string> read_rpath(const std::filesystem::path& elf_file);

// Replaces the rpath of an ELF file in place with `rpath`, which must not be
// longer than the one there (the string table cannot grow without relinking).
// The entry becomes DT_RPATH: unlike DT_RUNPATH, the loader also applies it to
// the dependencies of the libraries it loads, which is what lets a bundled
// libcurl find a bundled libnghttp2.
void replace_rpath(const std::filesystem::path& elf_file, std::string_view rpath);

}  // namespace sieve::bundle
