#include "bundle/elf_rpath.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>

#include "bundle/loaded_libraries.hpp"
#include "sieve/error.hpp"

namespace fs = std::filesystem;

namespace sieve::bundle {
namespace {

// binutils' readelf is the independent reference for what the loader reads.
std::string readelf_dynamic(const fs::path& file) {
  const std::string command = "readelf -d '" + file.string() + "' 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return {};
  std::string out;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe.get()) != nullptr) out += buffer.data();
  return out;
}

// "RUNPATH" or "RPATH", and the path list, as readelf prints them:
//  0x...1d (RUNPATH)            Library runpath: [$ORIGIN/../lib:/opt/lib]
// (parsed by hand: std::regex trips GCC 12's -Wmaybe-uninitialized in the sanitizer build)
std::pair<std::string, std::string> readelf_rpath(const fs::path& file) {
  const std::string dynamic = readelf_dynamic(file);
  for (const std::string tag : {"RUNPATH", "RPATH"}) {
    const auto at = dynamic.find("(" + tag + ")");
    if (at == std::string::npos) continue;
    const auto open = dynamic.find('[', at);
    const auto close = dynamic.find(']', open);
    if (open == std::string::npos || close == std::string::npos) return {};
    return {tag, dynamic.substr(open + 1, close - open - 1)};
  }
  return {};
}

class ElfRpathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sieve-elf-rpath-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    // This test program is itself built with an rpath (ONNX Runtime's folder).
    copy_ = dir_ / "program";
    fs::copy_file(fs::read_symlink("/proc/self/exe"), copy_, fs::copy_options::overwrite_existing);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  fs::path copy_;
};

TEST_F(ElfRpathTest, ReadsWhatReadelfReads) {
  const auto [tag, expected] = readelf_rpath(copy_);
  ASSERT_FALSE(expected.empty()) << readelf_dynamic(copy_);
  const auto rpath = read_rpath(copy_);
  ASSERT_TRUE(rpath.has_value());
  EXPECT_EQ(*rpath, expected);
}

TEST_F(ElfRpathTest, ReplacesWithAShorterRpathAsDtRpath) {
  replace_rpath(copy_, "$ORIGIN/x");
  const auto [tag, path] = readelf_rpath(copy_);
  EXPECT_EQ(tag, "RPATH");
  EXPECT_EQ(path, "$ORIGIN/x");
  EXPECT_EQ(read_rpath(copy_).value_or(""), "$ORIGIN/x");
  // Still a program the loader accepts: it lists its libraries.
  const std::string listed = readelf_dynamic(copy_);
  EXPECT_NE(listed.find("(NEEDED)"), std::string::npos) << listed;
  EXPECT_TRUE((fs::status(copy_).permissions() & fs::perms::owner_exec) != fs::perms::none);
}

TEST_F(ElfRpathTest, RefusesALongerRpathAndLeavesTheFile) {
  const auto before = read_rpath(copy_).value_or("");
  const std::string longer(before.size() + 1, 'x');
  try {
    replace_rpath(copy_, longer);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("too short"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_rpath(copy_).value_or(""), before);
}

TEST_F(ElfRpathTest, RejectsFilesThatAreNotElf) {
  const fs::path text = dir_ / "text";
  std::ofstream(text) << "#!/bin/sh\necho hello\n";
  EXPECT_THROW((void)read_rpath(text), Error);
  try {
    replace_rpath(text, "$ORIGIN");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kParse);
    EXPECT_NE(std::string(e.what()).find(text.string()), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)read_rpath(dir_ / "missing"), Error);
}

TEST_F(ElfRpathTest, RejectsTruncatedFiles) {
  for (const std::uintmax_t size : {4U, 64U, 200U, 4096U}) {
    fs::resize_file(copy_, size);
    EXPECT_THROW((void)read_rpath(copy_), Error) << size;
  }
}

TEST(LoadedLibraries, ListsOnnxRuntimeAndKeepsGlibcOut) {
  const auto libraries = loaded_libraries();
  bool onnxruntime = false;
  for (const auto& library : libraries) {
    EXPECT_TRUE(fs::is_regular_file(library)) << library;
    if (library.filename().string().starts_with("libonnxruntime.so")) onnxruntime = true;
  }
  EXPECT_TRUE(onnxruntime);
  EXPECT_TRUE(is_system_runtime("libc.so.6"));
  EXPECT_TRUE(is_system_runtime("ld-linux-x86-64.so.2"));
  EXPECT_TRUE(is_system_runtime("libstdc++.so.6"));
  EXPECT_FALSE(is_system_runtime("libonnxruntime.so.1"));
  EXPECT_FALSE(is_system_runtime("libcurl.so.4"));
  EXPECT_FALSE(is_system_runtime("libcrypto.so.3"));
}

}  // namespace
}  // namespace sieve::bundle
