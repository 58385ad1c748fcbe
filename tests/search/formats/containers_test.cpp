// Compressed files and archives: read as the files they hold, within the limits on what one file may expand to.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "search/extract.hpp"
#include "search/formats/archive_writer.hpp"
#include "sieve/error.hpp"

namespace sieve::search {
namespace {

using testing::ArchiveKind;
using testing::write_archive;

std::string only_text(const Extraction& read) {
  EXPECT_EQ(read.documents.size(), 1U);
  return read.documents.empty() ? "" : read.documents[0].text;
}

TEST(Containers, CompressedFilesAreReadAsWhatTheyHeld) {
  const std::string changelog = "sieve (1.0) unstable; urgency=low\n\n  * First release.\n";
  for (const auto kind : {ArchiveKind::kGzip, ArchiveKind::kBzip2, ArchiveKind::kXz}) {
    const std::string bytes = write_archive(kind, {{"", changelog}});
    const Extraction read = extract_file(bytes, "changelog.Debian.gz", "/d/changelog.Debian.gz");
    ASSERT_NE(read.format, nullptr);
    EXPECT_EQ(only_text(read), changelog);
    EXPECT_EQ(read.documents[0].key, "/d/changelog.Debian.gz");
  }
  // The name inside decides the format: Markdown's heading becomes the title.
  const Extraction md = extract_file(write_archive(ArchiveKind::kGzip, {{"", "# Guide\n\nSome *text*.\n"}}),
                                     "README.md.gz", "/d/README.md.gz");
  EXPECT_EQ(std::string(md.format->name), "gzip");
  ASSERT_EQ(md.documents.size(), 1U);
  EXPECT_EQ(md.documents[0].title, "Guide");
  EXPECT_EQ(md.documents[0].text, "Guide\n\nSome text.");
  // Found by its signature whatever its name.
  const Extraction renamed = extract_file(write_archive(ArchiveKind::kXz, {{"", "plain words"}}), "notes.txt", "k");
  EXPECT_EQ(std::string(renamed.format->name), "xz");
  EXPECT_EQ(only_text(renamed), "plain words");
}

TEST(Containers, ArchiveMembersAreDocumentsOfTheirOwn) {
  const std::string zip = write_archive(
      ArchiveKind::kZip, {{"docs/a.txt", "alpha text"},
                          {"docs/b.html", "<title>B</title><p>beta</p>"},
                          {"docs/logo.png", std::string("\x89PNG\r\n\x1A\n\0\0", 10)},
                          {"inner.tar.gz", write_archive(ArchiveKind::kTarGz, {{"c.md", "# C\n\ngamma"}})}});
  const Extraction read = extract_file(zip, "bundle.zip", "/x/bundle.zip");
  ASSERT_EQ(read.documents.size(), 3U);
  EXPECT_EQ(read.documents[0].key, "/x/bundle.zip!docs/a.txt");
  EXPECT_EQ(read.documents[0].text, "alpha text");
  EXPECT_EQ(read.documents[1].key, "/x/bundle.zip!docs/b.html");
  EXPECT_EQ(read.documents[1].title, "B");
  EXPECT_EQ(read.documents[2].key, "/x/bundle.zip!inner.tar.gz!c.md");
  EXPECT_EQ(read.documents[2].text, "C\n\ngamma");
  // The image is counted, not read.
  EXPECT_EQ(read.skipped, (std::map<std::string, std::size_t>{{"binary file", 1}}));
  EXPECT_TRUE(read.errors.empty());
}

TEST(Containers, ACompressionBombIsRefusedInBoundedMemory) {
  // 40 MiB of one letter compress to about 40 KB: a thousand times, where 200 is the limit.
  const std::string bomb = write_archive(ArchiveKind::kGzip, {{"", std::string(std::size_t{40} << 20, 'a')}});
  ASSERT_LT(bomb.size(), std::size_t{2} << 20);
  try {
    (void)extract_file(bomb, "zeros.txt.gz", "zeros.txt.gz");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
    EXPECT_NE(std::string(e.what()).find("expands more than 200 times"), std::string::npos) << e.what();
  }
  // Under the ratio, the size limit holds: 20 MiB of text from a small file, with a 16 MiB limit.
  ExtractLimits small;
  small.max_expanded_bytes = std::size_t{16} << 20;
  const std::string big = write_archive(ArchiveKind::kGzip, {{"", std::string(std::size_t{20} << 20, 'b')}});
  EXPECT_THROW((void)extract_file(big, "b.gz", "b.gz", small), Error);
}

TEST(Containers, NestingStopsAtTheLimit) {
  std::string bytes = "deep text";
  std::string name = "t.txt";
  for (int level = 0; level < 6; ++level) {
    bytes = write_archive(ArchiveKind::kZip, {{name, bytes}});
    name = "level" + std::to_string(level) + ".zip";
  }
  const Extraction read = extract_file(bytes, name, "top.zip");
  EXPECT_TRUE(read.documents.empty());
  ASSERT_EQ(read.warnings.size(), 1U);
  EXPECT_NE(read.warnings[0].find("nested more than 4 levels deep: not read"), std::string::npos) << read.warnings[0];
}

TEST(Containers, DamageIsReportedAndMembersBeforeItKept) {
  const std::string zip = write_archive(ArchiveKind::kTar, {{"a.txt", "first"}, {"b.txt", std::string(4096, 'x')}});
  const std::string cut = zip.substr(0, 1024 + 700);  // inside b.txt's data
  try {
    (void)extract_file(cut, "cut.tar", "cut.tar");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kParse);
    EXPECT_NE(std::string(e.what()).find("cut.tar"), std::string::npos) << e.what();
  }
  // A bad member (JSONL that is not JSON) is an error of its own; the others are read.
  const Extraction read = extract_file(
      write_archive(ArchiveKind::kZip, {{"bad.jsonl", "{not json"}, {"good.txt", "fine"}}), "m.zip", "m.zip");
  ASSERT_EQ(read.documents.size(), 1U);
  EXPECT_EQ(read.documents[0].key, "m.zip!good.txt");
  ASSERT_EQ(read.errors.size(), 1U);
  EXPECT_TRUE(read.errors[0].starts_with("m.zip!bad.jsonl")) << read.errors[0];
}

TEST(Containers, GarbageWithASignatureIsAClearError) {
  EXPECT_THROW((void)extract_file(std::string("\x1F\x8B garbage that is not gzip"), "x.gz", "x.gz"), Error);
  EXPECT_THROW((void)extract_file(std::string("PK\x03\x04 not a zip"), "x.zip", "x.zip"), Error);
}

}  // namespace
}  // namespace sieve::search
