// Manual pages, reStructuredText, AsciiDoc and source code: the text a reader sees, titles and metadata.
#include <gtest/gtest.h>

#include <string>

#include "search/extract.hpp"
#include "search/formats/formats.hpp"

namespace sieve::search {
namespace {

ExtractedDocument read_one(std::string_view bytes, const std::string& name) {
  Extraction read = extract_file(bytes, name, "/d/" + name);
  EXPECT_NE(read.format, nullptr);
  EXPECT_EQ(read.documents.size(), 1U);
  return read.documents.empty() ? ExtractedDocument{} : std::move(read.documents[0]);
}

TEST(TextFormats, ManPageReadsAsManShowsIt) {
  const std::string page =
      ".\\\" Manual page for frob\n"
      ".TH FROB 1 \"2024-05-01\" \"frob 1.0\" \"User Commands\"\n"
      ".SH NAME\n"
      "frob \\- twiddle \\fBbits\\fR quickly\n"
      ".SH SYNOPSIS\n"
      ".B frob\n"
      "[\\fIoptions\\fP] \\fIfile\\fR\\&...\n"
      ".SH DESCRIPTION\n"
      "It reads\n"
      "each file\\(emone by one.\n"
      ".TP\n"
      ".BR \\-v \", \" \\-\\-verbose\n"
      "Say more.\n"
      ".de XX\n"
      "hidden macro body\n"
      "..\n"
      ".nf\n"
      "  kept   as is\n"
      ".fi\n"
      "See\n"
      ".BR ls (1).\n";
  const ExtractedDocument doc = read_one(page, "frob.1");
  EXPECT_EQ(doc.title, "FROB(1)");
  EXPECT_EQ(doc.metadata, (std::vector<std::pair<std::string, std::string>>{{"section", "1"}}));
  EXPECT_EQ(doc.text,
            "NAME\nfrob - twiddle bits quickly\n\nSYNOPSIS\nfrob [options] file...\n\n"
            "DESCRIPTION\nIt reads each file\xE2\x80\x94one by one.\n-v, --verbose\nSay more.\n  kept   as is\n"
            "See ls(1).");
  // Found by its first line without the ending, and in a .gz through the gzip reader.
  EXPECT_EQ(std::string(detect_format("frob", page).format->name), "man");
}

TEST(TextFormats, RestructuredTextLosesItsMarkupLines) {
  const ExtractedDocument doc = read_one(
      "=========\nUser Guide\n=========\n\n.. _intro:\n\nIntro\n-----\n\nSome text.\n\n.. note:: Be careful.\n\n"
      ".. code-block:: python\n\n   print(1)\n",
      "guide.rst");
  EXPECT_EQ(doc.title, "User Guide");
  EXPECT_EQ(doc.text, "User Guide\n\nIntro\n\nSome text.\n\nBe careful.\n\n   print(1)");
}

TEST(TextFormats, AsciiDocHeaderGivesTitleAndMetadata) {
  const ExtractedDocument doc = read_one(
      "= Install Guide\n:author: Ada\n:version: 2\n\n// a comment\nFirst step.\n\n----\ncode\n----\n", "install.adoc");
  EXPECT_EQ(doc.title, "Install Guide");
  EXPECT_EQ(doc.metadata, (std::vector<std::pair<std::string, std::string>>{{"author", "Ada"}, {"version", "2"}}));
  EXPECT_EQ(doc.text, "First step.\n\ncode");
}

TEST(TextFormats, SourceCodeKeepsItsTextAndNamesItsLanguage) {
  const std::string code = "int main() {\n  return 0;\n}\n";
  const ExtractedDocument doc = read_one(code, "main.cpp");
  EXPECT_EQ(doc.text, code);
  EXPECT_EQ(doc.metadata, (std::vector<std::pair<std::string, std::string>>{{"language", "C++"}}));
  EXPECT_EQ(read_one("all:\n\ttrue\n", "Makefile").metadata.at(0).second, "Makefile");
  EXPECT_EQ(read_one("project(x)\n", "CMakeLists.txt").metadata.at(0).second, "CMake");
  EXPECT_EQ(read_one("key: value\n", "config.yml").metadata.at(0).second, "YAML");
}

}  // namespace
}  // namespace sieve::search
