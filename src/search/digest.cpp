#include "search/digest.hpp"

#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <array>
#include <cmath>
#include <fstream>
#include <memory>
#include <vector>

#include "sieve/error.hpp"

namespace sieve::search {
namespace {

class Sha256 {
 public:
  Sha256() : context_(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {
    if (!context_ || EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr) != 1) {
      throw Error(ErrorCode::kRuntime, "OpenSSL cannot compute SHA-256");
    }
  }
  void update(const void* data, std::size_t size) { EVP_DigestUpdate(context_.get(), data, size); }
  std::string hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    EVP_DigestFinal_ex(context_.get(), digest.data(), &length);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string text;
    for (unsigned int i = 0; i < length; ++i) {
      text += kHex[digest[i] >> 4];
      text += kHex[digest[i] & 15];
    }
    return text;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context_;
};

}  // namespace

std::string sha256_hex(std::string_view data) {
  Sha256 digest;
  digest.update(data.data(), data.size());
  return digest.hex();
}

std::string file_sha256(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(ErrorCode::kNotFound, "cannot read " + file.string());
  Sha256 digest;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    digest.update(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw Error(ErrorCode::kRuntime, "error reading " + file.string());
  return digest.hex();
}

std::string descriptor_sha256(int fd, std::uint64_t& bytes) {
  Sha256 digest;
  std::vector<char> buffer(1 << 16);
  bytes = 0;
  for (;;) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::kInvalidInput, std::string("error reading: ") + std::strerror(errno));
    }
    if (got == 0) break;
    digest.update(buffer.data(), static_cast<std::size_t>(got));
    bytes += static_cast<std::uint64_t>(got);
  }
  return digest.hex();
}

void normalize(std::span<float> vector) {
  double norm = 0;
  for (const float v : vector) norm += static_cast<double>(v) * v;
  if (norm <= 0) return;
  const auto scale = static_cast<float>(1.0 / std::sqrt(norm));
  for (float& v : vector) v *= scale;
}

}  // namespace sieve::search
