#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace sieve::search {

// SHA-256 in hex: content hashes of files and documents, models' fingerprints.
std::string sha256_hex(std::string_view data);
std::string file_sha256(const std::filesystem::path& file);
// The SHA-256 of what `fd` holds from where it stands to its end (read in blocks), and the bytes read.
std::string descriptor_sha256(int fd, std::uint64_t& bytes);

// Scales a vector to unit length (a zero vector stays zero): the index
// compares by inner product, which is then the cosine.
void normalize(std::span<float> vector);

}  // namespace sieve::search
