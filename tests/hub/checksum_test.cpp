#include "hub/checksum.hpp"

#include "sieve/error.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace sieve::hub {
namespace {

namespace fs = std::filesystem;

// Expected values from Python's hashlib and `git hash-object`, not from this code.
TEST(Checksum, Sha256KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("hello world\n"), "a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447");
  EXPECT_EQ(sha256_hex(std::string(1000, 'x')), "44f8354494a5ba03ba1792a8d3e9c534c47a9181980fde7a3f44b06ef2ae7c7f");
}

TEST(Checksum, GitBlobSha1KnownVectors) {
  EXPECT_EQ(git_blob_sha1_hex(""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
  EXPECT_EQ(git_blob_sha1_hex("abc"), "f2ba8f84ab5c1bce84a7b441cb1959cfc7093b7f");
  EXPECT_EQ(git_blob_sha1_hex("hello world\n"), "3b18e512dba79e4c8300dd08aeb37f8e728b8dad");
  EXPECT_EQ(git_blob_sha1_hex(std::string(1000, 'x')), "14c7dfdd4258dec5c0e9d2e919bd249bd674be1f");
}

TEST(Checksum, StreamingEqualsOneShot) {
  Digest d(Digest::Kind::kSha256);
  d.update("hello ");
  d.update("world\n");
  EXPECT_EQ(d.hex(), "a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447");
}

// Larger than the 1 MiB read buffer, and not a multiple of it.
TEST(Checksum, FileDigestsAcrossBufferBoundaries) {
  const fs::path file = fs::temp_directory_path() / ("sieve-digest-" + std::to_string(::getpid()));
  {
    std::ofstream out(file, std::ios::binary);
    for (std::size_t i = 0; i < 3 * 1024 * 1024 + 7; ++i) out.put(static_cast<char>(i % 251));
  }
  const FileDigests d = digest_file(file);
  fs::remove(file);
  EXPECT_EQ(d.size, 3145735u);
  EXPECT_EQ(d.sha256, "f578a61853ca2f4272dba551bd868420e22302fbb6d6dfc0cc80da1d2c7b779f");
  EXPECT_EQ(d.git_sha1, "7fd2968e95516085873d570dc65c43188abb76b8");
}

TEST(Checksum, MissingFileIsAnError) {
  EXPECT_THROW((void)digest_file("/nonexistent/sieve-file"), Error);
}

}  // namespace
}  // namespace sieve::hub
