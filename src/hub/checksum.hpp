#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace sieve::hub {

// A streaming digest over OpenSSL's EVP interface.
class Digest {
 public:
  enum class Kind { kSha1, kSha256 };
  explicit Digest(Kind kind);
  Digest(const Digest&) = delete;
  Digest& operator=(const Digest&) = delete;
  ~Digest();

  void update(const void* data, std::size_t size);
  void update(std::string_view data) { update(data.data(), data.size()); }
  // Lower-case hexadecimal; the digest cannot be updated afterwards.
  [[nodiscard]] std::string hex();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

// The hub's two checksums of a file: SHA-256 of its content (what LFS
// pointers name) and git's blob id, SHA-1 of "blob <size>\0" + content (what
// "blobId" names for files kept in git itself).
struct FileDigests {
  std::uint64_t size = 0;
  std::string sha256;
  std::string git_sha1;
};
// Reads the file once for both. Throws sieve::Error when it cannot be read.
FileDigests digest_file(const std::filesystem::path& file);

std::string sha256_hex(std::string_view data);
std::string git_blob_sha1_hex(std::string_view content);

}  // namespace sieve::hub
