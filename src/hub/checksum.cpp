#include "hub/checksum.hpp"

#include <openssl/evp.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "sieve/error.hpp"

namespace sieve::hub {

struct Digest::Ctx {
  EVP_MD_CTX* md = nullptr;
  ~Ctx() { EVP_MD_CTX_free(md); }
};

Digest::Digest(Kind kind) : ctx_(std::make_unique<Ctx>()) {
  ctx_->md = EVP_MD_CTX_new();
  const EVP_MD* type = kind == Kind::kSha1 ? EVP_sha1() : EVP_sha256();
  if (ctx_->md == nullptr || EVP_DigestInit_ex(ctx_->md, type, nullptr) != 1) {
    throw Error(ErrorCode::kRuntime, "OpenSSL: cannot initialize a digest");
  }
}

Digest::~Digest() = default;

void Digest::update(const void* data, std::size_t size) {
  if (EVP_DigestUpdate(ctx_->md, data, size) != 1) throw Error(ErrorCode::kRuntime, "OpenSSL: digest update failed");
}

std::string Digest::hex() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> raw{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx_->md, raw.data(), &length) != 1) {
    throw Error(ErrorCode::kRuntime, "OpenSSL: digest final failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(std::size_t{2} * length);
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[raw[i] >> 4];
    out += kHex[raw[i] & 0xF];
  }
  return out;
}

FileDigests digest_file(const std::filesystem::path& file) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throw Error(ErrorCode::kRuntime, file.string() + ": " + ec.message());
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(ErrorCode::kRuntime, file.string() + ": cannot open: " + std::strerror(errno));
  Digest sha256(Digest::Kind::kSha256);
  Digest sha1(Digest::Kind::kSha1);
  // git hashes the header first, so the size must be known before the content.
  const std::string header = "blob " + std::to_string(size) + std::string(1, '\0');
  sha1.update(header);
  std::vector<char> buffer(1 << 20);
  std::uint64_t total = 0;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n == 0) break;
    sha256.update(buffer.data(), n);
    sha1.update(buffer.data(), n);
    total += n;
  }
  if (in.bad() || total != size) throw Error(ErrorCode::kRuntime, file.string() + ": read failed");
  return {size, sha256.hex(), sha1.hex()};
}

std::string sha256_hex(std::string_view data) {
  Digest d(Digest::Kind::kSha256);
  d.update(data);
  return d.hex();
}

std::string git_blob_sha1_hex(std::string_view content) {
  Digest d(Digest::Kind::kSha1);
  d.update("blob " + std::to_string(content.size()) + std::string(1, '\0'));
  d.update(content);
  return d.hex();
}

}  // namespace sieve::hub
