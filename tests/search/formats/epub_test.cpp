// The EPUB reader on books built here as EPUB 3 tools (Sigil, Calibre) write them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "sieve/error.hpp"
#include "zip_fixture.hpp"

namespace sieve::search {
namespace {
namespace epub_test {

using zip_fixture::Member;
using zip_fixture::metadata;
using zip_fixture::section_text;

const std::string kXmlDeclaration = R"(<?xml version="1.0" encoding="UTF-8"?>)"
                                    "\n";

const std::string kContainer =
    kXmlDeclaration +
    R"(<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">)"
    R"(<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>)"
    R"(</rootfiles></container>)";

std::string package(const std::string& title) {
  return kXmlDeclaration +
         R"(<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid" xml:lang="en">)"
         R"(<metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">)"
         R"(<dc:identifier id="uid">urn:uuid:0b9d6e2c-1f0a-4c55-9d3e-5a1c2b7e8f90</dc:identifier>)" +
         (title.empty() ? "" : R"(<dc:title id="t1">)" + title + "</dc:title><dc:title>A subtitle</dc:title>") +
         R"(<dc:creator id="c1">Mary Shelley</dc:creator><meta refines="#c1" property="role" scheme="marc:relators">aut</meta>)"
         R"(<dc:creator>Percy  Shelley</dc:creator><dc:language>en-GB</dc:language><dc:date>1818-01-01</dc:date>)"
         R"(<dc:publisher>Lackington</dc:publisher><meta property="dcterms:modified">2024-01-01T00:00:00Z</meta></metadata>)"
         R"(<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>)"
         R"(<item id="cover" href="Images/cover.jpg" media-type="image/jpeg"/>)"
         R"(<item id="ch1" href="Text/chapter%201.xhtml" media-type="application/xhtml+xml"/>)"
         R"(<item id="ch2" href="Text/ch2.xhtml#start" media-type="application/xhtml+xml"/>)"
         R"(<item id="notes" href="../Notes/notes.xhtml" media-type="application/xhtml+xml"/>)"
         R"(<item id="css" href="Styles/style.css" media-type="text/css"/>)"
         R"(<item id="blank" href="Text/blank.xhtml" media-type="application/xhtml+xml"/>)"
         R"(<item id="cover-image" href="Images/cover.svg" media-type="image/svg+xml"/></manifest>)"
         // Notes marked non-linear come first in the spine and are read last; a repeated item is read once.
         R"(<spine toc="ncx"><itemref idref="notes" linear="no"/><itemref idref="cover-image"/><itemref idref="ch1"/>)"
         R"(<itemref idref="blank"/><itemref idref="ch2"/><itemref idref="ch1"/><itemref idref="unknown"/></spine></package>)";
}

std::string xhtml(const std::string& title, const std::string& body) {
  return kXmlDeclaration +
         "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">"
         "<head><title>" +
         title +
         R"(</title><link href="../Styles/style.css" rel="stylesheet" type="text/css"/></head>)"
         "<body>" +
         body + "</body></html>";
}

std::vector<Member> book_members(const std::string& title = "The  Voyage") {
  return {
      {.path = "mimetype", .data = "application/epub+zip", .stored = true},
      {"META-INF/container.xml", kContainer},
      {"OEBPS/content.opf", package(title)},
      {"OEBPS/Text/chapter 1.xhtml", xhtml("The Voyage", "<h1>Letter 1</h1><p>You will rejoice to hear.</p>")},
      {"OEBPS/Text/ch2.xhtml",
       xhtml("", R"(<section epub:type="chapter"><h1 id="start">The Storm</h1><p>It was a dark night.</p></section>)")},
      {"OEBPS/Text/blank.xhtml", xhtml("", R"(<div><img src="../Images/cover.jpg" alt=""/></div>)")},
      {"Notes/notes.xhtml", xhtml("Notes", "<p>Note one.</p>")},
      {"OEBPS/Images/cover.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"><text>Cover</text></svg>"},
      {"OEBPS/Styles/style.css", "p { margin: 0 }"},
      {"OEBPS/nav.xhtml", xhtml("Contents", "<nav epub:type=\"toc\"><ol><li>Letter 1</li></ol></nav>")},
  };
}

TEST(Epub, ChaptersInSpineOrder) {
  const zip_fixture::Result result = zip_fixture::extract(kEpubFormat, zip_fixture::zip(book_members()), "g.epub");
  const ExtractedDocument& doc = result.document();
  EXPECT_EQ(doc.text, "Letter 1\n\nYou will rejoice to hear.\n\nThe Storm\n\nIt was a dark night.\n\nNote one.");
  // A chapter whose <title> is the book's has a plain label; the others are named by <title>, else <h1>.
  EXPECT_EQ(zip_fixture::labels(doc),
            (std::vector<std::string>{"chapter 1", "chapter 2: The Storm", "chapter 3: Notes"}));
  EXPECT_EQ(section_text(doc, "chapter 1"), "Letter 1\n\nYou will rejoice to hear.\n\n");
  EXPECT_EQ(section_text(doc, "chapter 2: The Storm"), "The Storm\n\nIt was a dark night.\n\n");
  EXPECT_EQ(section_text(doc, "chapter 3: Notes"), "Note one.");
  EXPECT_EQ(doc.title, "The Voyage");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"author", "Mary Shelley; Percy Shelley"},
      {"created", "1818-01-01"},
      {"language", "en-GB"},
      {"publisher", "Lackington"},
  };
  EXPECT_EQ(doc.metadata, expected);
  EXPECT_TRUE(result.errors.empty());
  EXPECT_TRUE(result.warnings.empty());
}

TEST(Epub, TitleFromFirstChapterWithoutMetadata) {
  const ExtractedDocument doc =
      zip_fixture::extract(kEpubFormat, zip_fixture::zip(book_members("")), "g.epub").document();
  EXPECT_EQ(doc.title, "The Voyage");
  EXPECT_EQ(doc.sections.front().label, "chapter 1: The Voyage");
}

TEST(Epub, MissingAndUnreadableChapters) {
  std::vector<Member> members = book_members();
  members.erase(members.begin() + 4);  // ch2.xhtml
  // Latin-1 without a declared charset: read, with a warning.
  members[5].data = "<html><body><p>caf\xE9</p></body></html>";
  const zip_fixture::Result result = zip_fixture::extract(kEpubFormat, zip_fixture::zip(members), "g.epub");
  EXPECT_EQ(result.document().text, "Letter 1\n\nYou will rejoice to hear.\n\ncaf\xC3\xA9");
  EXPECT_EQ(result.errors, (std::vector<std::string>{"/x/g.epub: OEBPS/Text/ch2.xhtml: in the spine but missing"}));
  ASSERT_EQ(result.warnings.size(), 1U);
  EXPECT_EQ(result.warnings[0].rfind("/x/g.epub: Notes/notes.xhtml: not valid UTF-8", 0), 0U) << result.warnings[0];
}

TEST(Epub, Errors) {
  std::vector<Member> members = book_members();
  members.erase(members.begin() + 1);
  EXPECT_EQ(zip_fixture::error_of(kEpubFormat, zip_fixture::zip(members), "g.epub", ErrorCode::kParse),
            "not an EPUB file: META-INF/container.xml is missing");
  members = book_members();
  members.erase(members.begin() + 2);
  EXPECT_EQ(zip_fixture::error_of(kEpubFormat, zip_fixture::zip(members), "g.epub", ErrorCode::kParse),
            "not an EPUB file: OEBPS/content.opf is missing");
  members = book_members();
  members[1].data = R"(<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles/></container>)";
  EXPECT_EQ(zip_fixture::error_of(kEpubFormat, zip_fixture::zip(members), "g.epub", ErrorCode::kParse),
            "not an EPUB file: META-INF/container.xml names no package document (<rootfile full-path=...>)");
  members = book_members();
  members[2].data = "<package>\n<metadata>\n</package>";
  const std::string message =
      zip_fixture::error_of(kEpubFormat, zip_fixture::zip(members), "g.epub", ErrorCode::kParse);
  EXPECT_EQ(message.rfind("OEBPS/content.opf: malformed XML: ", 0), 0U) << message;
  EXPECT_NE(message.find("(line 3)"), std::string::npos) << message;
  members = book_members();
  members[2].data = R"(<!DOCTYPE package [<!ENTITY t "x">]><package/>)";
  EXPECT_EQ(zip_fixture::error_of(kEpubFormat, zip_fixture::zip(members), "g.epub", ErrorCode::kUnsupported),
            "OEBPS/content.opf: XML that declares entities (<!ENTITY) is not read");
}

TEST(Epub, DrmAndObfuscatedFonts) {
  const auto encryption = [](const std::vector<std::string>& uris) {
    std::string xml =
        kXmlDeclaration +
        R"(<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">)";
    for (const std::string& uri : uris) {
      xml += R"(<enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/>)"
             R"(<enc:CipherData><enc:CipherReference URI=")" +
             uri + R"("/></enc:CipherData></enc:EncryptedData>)";
    }
    return xml + "</encryption>";
  };
  // Fonts obfuscated as EPUB allows: the book reads as usual.
  std::vector<Member> members = book_members();
  members.push_back({"META-INF/encryption.xml", encryption({"OEBPS/Fonts/serif.otf"})});
  EXPECT_EQ(zip_fixture::extract(kEpubFormat, zip_fixture::zip(members), "g.epub").document().sections.size(), 3U);
  // Every chapter encrypted: the book cannot be read.
  members.back().data = encryption({"OEBPS/Text/chapter%201.xhtml", "OEBPS/Text/ch2.xhtml", "Notes/notes.xhtml"});
  EXPECT_EQ(zip_fixture::error_of(kEpubFormat, zip_fixture::zip(members), "g.epub", ErrorCode::kUnsupported),
            "encrypted (DRM-protected): not read");
  // Some: those are reported, the rest read.
  members.back().data = encryption({"OEBPS/Text/ch2.xhtml"});
  const zip_fixture::Result result = zip_fixture::extract(kEpubFormat, zip_fixture::zip(members), "g.epub");
  EXPECT_EQ(result.document().sections.size(), 2U);
  EXPECT_EQ(result.errors, (std::vector<std::string>{"/x/g.epub: OEBPS/Text/ch2.xhtml: encrypted (DRM): not read"}));
}

TEST(Epub, CompressionBombRefused) {
  std::vector<Member> members = book_members();
  members.push_back({.path = "OEBPS/Images/zeros.jpg", .data = "", .stored = false, .zeros = 40u << 20});
  const std::string message =
      zip_fixture::error_of(kEpubFormat, zip_fixture::zip(members), "g.epub", ErrorCode::kInvalidInput);
  EXPECT_NE(message.find("compression bomb"), std::string::npos) << message;
}

TEST(EpubSniff, MediaTypeInFirstMember) {
  const std::string book = zip_fixture::zip(book_members());
  EXPECT_TRUE(kEpubFormat.sniff(book.substr(0, kSniffBytes)));
  // As the specification lays it out: "mimetypeapplication/epub+zip" at byte 30.
  std::string head(
      "PK\x03\x04\x0a\x00\x00\x00\x00\x00\x00\x00\x21\x58\x6f\x61\xab\x2c\x14\x00\x00\x00\x14\x00\x00\x00"
      "\x08\x00\x00\x00",
      30);
  head += "mimetypeapplication/epub+zipPK\x03\x04";
  EXPECT_EQ(head.find("mimetypeapplication/epub+zip"), 30U);
  EXPECT_TRUE(kEpubFormat.sniff(head));
  EXPECT_FALSE(
      kEpubFormat.sniff(zip_fixture::zip({{.path = "mimetype", .data = "application/epub+zipx", .stored = true}})));
  EXPECT_FALSE(kOdtFormat.sniff(book.substr(0, kSniffBytes)));
  EXPECT_EQ(kEpubFormat.name, "epub");
  EXPECT_EQ(kEpubFormat.label, "EPUB book");
  EXPECT_EQ(kEpubFormat.extensions, (std::vector<std::string_view>{".epub"}));
}

}  // namespace epub_test
}  // namespace
}  // namespace sieve::search
