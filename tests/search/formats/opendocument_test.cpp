// The OpenDocument readers (ODT, ODS, ODP) on files built here as LibreOffice writes them.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "sieve/error.hpp"
#include "zip_fixture.hpp"

namespace sieve::search {
namespace {
namespace opendocument_test {

using zip_fixture::Member;
using zip_fixture::metadata;
using zip_fixture::section_text;

const std::string kXmlDeclaration = R"(<?xml version="1.0" encoding="UTF-8"?>)"
                                    "\n";
const std::string kTextType = "application/vnd.oasis.opendocument.text";
const std::string kSpreadsheetType = "application/vnd.oasis.opendocument.spreadsheet";
const std::string kPresentationType = "application/vnd.oasis.opendocument.presentation";

const std::string kNamespaces =
    R"(xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" )"
    R"(xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" )"
    R"(xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" )"
    R"(xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" )"
    R"(xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" )"
    R"(xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" )"
    R"(xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:dc="http://purl.org/dc/elements/1.1/" )"
    R"(xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" )"
    R"(xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" )"
    R"(xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" )"
    R"(xmlns:calcext="urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0" )"
    R"(office:version="1.3")";

std::string content(const std::string& kind, const std::string& body) {
  return kXmlDeclaration + "<office:document-content " + kNamespaces +
         R"(><office:scripts/><office:font-face-decls><style:font-face style:name="Liberation Serif"/></office:font-face-decls>)"
         R"(<office:automatic-styles><style:style style:name="P1" style:family="paragraph"/></office:automatic-styles>)"
         "<office:body><office:" +
         kind + ">" + body + "</office:" + kind + "></office:body></office:document-content>";
}

std::string meta(const std::string& title) {
  return kXmlDeclaration + "<office:document-meta " + kNamespaces +
         R"(><office:meta><meta:creation-date>2024-03-01T10:00:00.123456789</meta:creation-date>)"
         "<dc:date>2024-03-02T11:00:00</dc:date><meta:editing-cycles>2</meta:editing-cycles>"
         "<meta:generator>LibreOffice/7.4.7.2$Linux_X86_64</meta:generator>" +
         (title.empty() ? "" : "<dc:title>" + title + "</dc:title>") +
         "<meta:initial-creator>Grace Hopper</meta:initial-creator><dc:creator>Alan  Turing</dc:creator>"
         R"(<meta:document-statistic meta:page-count="1" meta:word-count="42"/></office:meta></office:document-meta>)";
}

const std::string kManifest =
    kXmlDeclaration +
    R"(<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">)"
    R"(<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>)"
    R"(<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>)"
    R"(<manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/></manifest:manifest>)";

// A file as LibreOffice writes it: "mimetype" first and stored, then content.xml and the rest.
std::string odf(const std::string& media_type, const std::string& content_xml, const std::string& meta_xml,
                std::vector<Member> extra = {}) {
  std::vector<Member> members = {
      {.path = "mimetype", .data = media_type, .stored = true},
      {"content.xml", content_xml},
      {"styles.xml", kXmlDeclaration + "<office:document-styles " + kNamespaces + "/>"},
      {"meta.xml", meta_xml},
      {"META-INF/manifest.xml", kManifest},
  };
  for (Member& member : extra) members.push_back(std::move(member));
  return zip_fixture::zip(members);
}

// --- ODT -------------------------------------------------------------------------------------

const std::string kTextBody =
    R"(<text:sequence-decls><text:sequence-decl text:display-outline-level="0" text:name="Illustration"/></text:sequence-decls>)"
    // Deleted text of a tracked change is kept apart from the text, and is not read.
    R"(<text:tracked-changes><text:changed-region text:id="ct1"><text:deletion><office:change-info><dc:creator>X</dc:creator>)"
    R"(</office:change-info><text:p>Deleted words</text:p></text:deletion></text:changed-region></text:tracked-changes>)"
    R"(<text:h text:style-name="P1" text:outline-level="1">Introduction</text:h>)"
    R"(<text:p text:style-name="Standard">Hello<text:s/>world, <text:span text:style-name="T1">bold</text:span> and<text:s text:c="3"/>)"
    R"(spaced<text:tab/>tabbed<text:line-break/>next line<text:change text:change-id="ct1"/>.)"
    R"(<text:note text:id="ftn1" text:note-class="footnote"><text:note-citation>1</text:note-citation>)"
    R"(<text:note-body><text:p text:style-name="Footnote">A footnote.</text:p></text:note-body></text:note></text:p>)"
    R"(<text:list text:style-name="L1"><text:list-item><text:p>First item</text:p></text:list-item><text:list-item>)"
    R"(<text:p>Second item</text:p><text:list><text:list-item><text:p>Nested item</text:p></text:list-item></text:list>)"
    R"(</text:list-item></text:list>)"
    R"(<table:table table:name="Table1"><table:table-column table:number-columns-repeated="3"/><table:table-header-rows>)"
    R"(<table:table-row><table:table-cell office:value-type="string"><text:p>Name</text:p></table:table-cell>)"
    R"(<table:table-cell><text:p>Age</text:p></table:table-cell><table:table-cell><text:p>Town</text:p></table:table-cell>)"
    R"(</table:table-row></table:table-header-rows><table:table-row><table:table-cell><text:p>Ada</text:p><text:p>Lovelace</text:p>)"
    R"(</table:table-cell><table:table-cell/><table:table-cell><text:p>London</text:p></table:table-cell></table:table-row></table:table>)"
    // A comment, a picture's alternative text: not read. A text box and a field showing the title: read.
    R"(<text:p>Reviewed<office:annotation><dc:creator>Bob</dc:creator><text:p>Comment text</text:p></office:annotation> text</text:p>)"
    R"(<text:p><draw:frame draw:name="Image1" svg:width="1cm"><draw:image xlink:href="Pictures/1.png"/><svg:title>Alt title</svg:title>)"
    R"(<svg:desc>Alt description</svg:desc></draw:frame>Caption <draw:frame><draw:text-box><text:p>Boxed</text:p></draw:text-box></draw:frame></text:p>)"
    R"(<text:h text:outline-level="2">Details</text:h><text:p>Title: <text:title>Field Notes</text:title></text:p>)";

TEST(Odt, TextInOrder) {
  const zip_fixture::Result result =
      zip_fixture::extract(kOdtFormat, odf(kTextType, content("text", kTextBody), meta("Field Notes")), "d.odt");
  const ExtractedDocument& doc = result.document();
  EXPECT_EQ(doc.text,
            "Introduction\n\nHello world, bold and   spaced\ttabbed\nnext line.\n\nFirst item\n\nSecond item\n\n"
            "Nested item\n\nName\tAge\tTown\nAda Lovelace\t\tLondon\n\nReviewed text\n\nCaption\n\nBoxed\n\n"
            "Details\n\nTitle: Field Notes\n\nA footnote.");
  EXPECT_TRUE(doc.sections.empty());
  EXPECT_TRUE(result.errors.empty());
}

TEST(Odt, TitleAndMetadata) {
  const ExtractedDocument doc =
      zip_fixture::extract(kOdtFormat, odf(kTextType, content("text", kTextBody), meta("Field Notes")), "d.odt")
          .document();
  EXPECT_EQ(doc.title, "Field Notes");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"author", "Grace Hopper"},
      {"created", "2024-03-01T10:00:00.123456789"},
      {"modified", "2024-03-02T11:00:00"},
      {"modified_by", "Alan Turing"},
  };
  EXPECT_EQ(doc.metadata, expected);
  // Without a title in meta.xml: the first level-1 heading, not a level-2 one before it.
  const std::string body = R"(<text:h text:outline-level="2">Minor</text:h><text:p>x</text:p>)"
                           R"(<text:h text:outline-level="1"><text:span>Major</text:span> <text:s/>heading</text:h>)";
  EXPECT_EQ(zip_fixture::extract(kOdtFormat, odf(kTextType, content("text", body), meta("")), "d.odt").document().title,
            "Major heading");
}

TEST(Odt, Errors) {
  // Missing content.xml.
  const std::string missing =
      zip_fixture::zip({{.path = "mimetype", .data = kTextType, .stored = true}, {"meta.xml", meta("x")}});
  EXPECT_EQ(zip_fixture::error_of(kOdtFormat, missing, "d.odt", ErrorCode::kParse),
            "not an ODT file: content.xml is missing");
  // Malformed content.xml.
  const std::string message = zip_fixture::error_of(
      kOdtFormat, odf(kTextType, content("text", "<text:p>unclosed"), meta("x")), "d.odt", ErrorCode::kParse);
  EXPECT_EQ(message.rfind("content.xml: malformed XML: ", 0), 0U) << message;
  EXPECT_NE(message.find("(line 2)"), std::string::npos) << message;
  // A spreadsheet's content read as text.
  EXPECT_EQ(zip_fixture::error_of(kOdtFormat, odf(kTextType, content("spreadsheet", ""), meta("x")), "d.odt",
                                  ErrorCode::kParse),
            "not an ODT file: content.xml has no <office:text>");
  // Entities declared.
  const std::string entities = kXmlDeclaration + R"(<!DOCTYPE office:document-content [<!ENTITY a "b">]>)" +
                               content("text", "<text:p>&a;</text:p>").substr(kXmlDeclaration.size());
  EXPECT_EQ(zip_fixture::error_of(kOdtFormat, odf(kTextType, entities, meta("x")), "d.odt", ErrorCode::kUnsupported),
            "content.xml: XML that declares entities (<!ENTITY) is not read");
  // Malformed meta.xml: reported, the text read.
  const zip_fixture::Result result = zip_fixture::extract(
      kOdtFormat, odf(kTextType, content("text", "<text:p>kept</text:p>"), "<office:meta"), "d.odt");
  EXPECT_EQ(result.document().text, "kept");
  ASSERT_EQ(result.errors.size(), 1U);
  EXPECT_EQ(result.errors[0].rfind("/x/d.odt: meta.xml: malformed XML: ", 0), 0U) << result.errors[0];
}

TEST(Odt, PasswordProtected) {
  std::string manifest = kManifest;
  manifest.replace(
      manifest.find(R"(<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>)"), 86,
      R"(<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml" manifest:size="1234">)"
      R"(<manifest:encryption-data manifest:checksum-type="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k" )"
      R"(manifest:checksum="abc="><manifest:algorithm manifest:algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc" )"
      R"(manifest:initialisation-vector="abc="/></manifest:encryption-data></manifest:file-entry>)");
  const std::string file = zip_fixture::zip({{.path = "mimetype", .data = kTextType, .stored = true},
                                             {"content.xml", std::string("\x93\x11\xfe binary", 10)},
                                             {"META-INF/manifest.xml", manifest}});
  EXPECT_EQ(zip_fixture::error_of(kOdtFormat, file, "d.odt", ErrorCode::kUnsupported),
            "encrypted (saved with a password): not read");
}

TEST(Odt, DeepNesting) {
  const std::string body = "<text:p>" + zip_fixture::nested("<text:span>", "</text:span>", 100000, "deep") +
                           "</text:p><text:p>after</text:p>";
  EXPECT_EQ(zip_fixture::extract(kOdtFormat, odf(kTextType, content("text", body), meta("")), "d.odt").document().text,
            "deep\n\nafter");
}

TEST(Odt, CompressionBombRefused) {
  const std::string file = odf(kTextType, content("text", "<text:p>x</text:p>"), meta(""),
                               {{.path = "Pictures/zeros.png", .data = "", .stored = false, .zeros = 40u << 20}});
  const std::string message = zip_fixture::error_of(kOdtFormat, file, "d.odt", ErrorCode::kInvalidInput);
  EXPECT_NE(message.find("compression bomb"), std::string::npos) << message;
}

// --- ODS -------------------------------------------------------------------------------------

const std::string kSheets =
    R"(<table:calculation-settings table:automatic-find-labels="false"/>)"
    R"(<table:table table:name="Sales" table:style-name="ta1"><table:table-column table:number-columns-repeated="16384"/>)"
    // Rows padded to the sheet's width with repeated empty cells: no tabs for those.
    R"(<table:table-row table:style-name="ro1"><table:table-cell office:value-type="string" calcext:value-type="string">)"
    R"(<text:p>Region</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>Total</text:p>)"
    R"(</table:table-cell><table:table-cell table:number-columns-repeated="16382"/></table:table-row>)"
    // The cell's text as shown, not its value; two empty cells between two with text.
    R"(<table:table-row><table:table-cell office:value-type="string"><text:p>North</text:p></table:table-cell>)"
    R"(<table:table-cell office:value-type="float" office:value="1200.5"><text:p>1,200.50</text:p></table:table-cell>)"
    R"(<table:table-cell table:number-columns-repeated="2"/><table:table-cell office:value-type="string"><text:p>note</text:p>)"
    R"(</table:table-cell><table:table-cell table:number-columns-repeated="16379"/></table:table-row>)"
    // Repeated text: each copy.
    R"(<table:table-row table:number-rows-repeated="2"><table:table-cell table:number-columns-repeated="3" office:value-type="string">)"
    R"(<text:p>x</text:p></table:table-cell><table:table-cell table:number-columns-repeated="16381"/></table:table-row>)"
    // A million empty rows: nothing.
    R"(<table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>)"
    // Leading empty cells keep the columns; a merged cell covers the next.
    R"(<table:table-row><table:table-cell table:number-columns-repeated="2"/><table:table-cell table:number-columns-spanned="2">)"
    R"(<text:p>merged</text:p></table:table-cell><table:covered-table-cell/><table:table-cell><text:p>after</text:p>)"
    R"(<office:annotation><dc:creator>Bob</dc:creator><text:p>a comment</text:p></office:annotation></table:table-cell></table:table-row>)"
    R"(</table:table>)"
    R"(<table:table table:name="Empty"><table:table-row table:number-rows-repeated="1048576">)"
    R"(<table:table-cell table:number-columns-repeated="16384"/></table:table-row></table:table>)"
    // Text repeated beyond reason: 100 copies at most, of rows and of cells.
    R"(<table:table table:name="Big repeat"><table:table-row table:number-rows-repeated="5000">)"
    R"(<table:table-cell table:number-columns-repeated="99999999999999999999999"><text:p>y</text:p></table:table-cell>)"
    R"(</table:table-row></table:table><table:named-expressions/>)";

TEST(Ods, SheetsRowsAndRepeats) {
  const zip_fixture::Result result =
      zip_fixture::extract(kOdsFormat, odf(kSpreadsheetType, content("spreadsheet", kSheets), meta("")), "e.ods");
  const ExtractedDocument& doc = result.document();
  EXPECT_EQ(zip_fixture::labels(doc), (std::vector<std::string>{"sheet Sales", "sheet Empty", "sheet Big repeat"}));
  EXPECT_EQ(section_text(doc, "sheet Sales"),
            "Sales\nRegion\tTotal\nNorth\t1,200.50\t\t\tnote\nx\tx\tx\nx\tx\tx\n\t\tmerged\t\tafter\n\n");
  EXPECT_EQ(section_text(doc, "sheet Empty"), "Empty\n\n");
  std::string row = "y";
  for (int i = 1; i < 100; ++i) row += "\ty";
  std::string rows;
  for (int i = 0; i < 100; ++i) rows += "\n" + row;
  EXPECT_EQ(section_text(doc, "sheet Big repeat"), "Big repeat" + rows);
  EXPECT_EQ(metadata(doc, "sheets"), "3");
  EXPECT_EQ(metadata(doc, "author"), "Grace Hopper");
  EXPECT_EQ(doc.title, "");
  EXPECT_TRUE(result.warnings.empty());
}

TEST(Ods, CellLimit) {
  // 51 rows, each repeated 10 times with 10 copies of its cell: 5,100 cells from a small file, with a limit of
  // 5,000.
  std::string sheet = R"(<table:table table:name="Lots">)";
  for (int i = 0; i < 51; ++i) {
    sheet += R"(<table:table-row table:number-rows-repeated="10"><table:table-cell table:number-columns-repeated="10">)"
             R"(<text:p>z</text:p></table:table-cell></table:table-row>)";
  }
  sheet += R"(</table:table><table:table table:name="After"><table:table-row><table:table-cell><text:p>late</text:p>)"
           R"(</table:table-cell></table:table-row></table:table>)";
  ExtractLimits limits;
  limits.max_cells = 5000;
  const zip_fixture::Result result =
      zip_fixture::extract(kOdsFormat, odf(kSpreadsheetType, content("spreadsheet", sheet), meta("")), "e.ods", limits);
  EXPECT_EQ(result.warnings, (std::vector<std::string>{"/x/e.ods: more than 5000 cells: the rest are left out"}));
  const std::string lots = section_text(result.document(), "sheet Lots");
  EXPECT_EQ(std::count(lots.begin(), lots.end(), 'z'), 5000);
  EXPECT_EQ(section_text(result.document(), "sheet After"), "After");
}

TEST(Ods, RepeatsCannotMultiplyText) {
  // A cell of 100 KiB repeated 100 times in a row repeated 100 times: a gigabyte from a small file. Text past
  // the file's expansion limit is left out, with a warning.
  const std::string sheet = R"(<table:table table:name="Wide"><table:table-row table:number-rows-repeated="100">)"
                            R"(<table:table-cell table:number-columns-repeated="100"><text:p>)" +
                            std::string(100 << 10, 'w') +
                            "</text:p></table:table-cell></table:table-row></table:table>";
  ExtractLimits limits;
  limits.max_ratio = 1'000'000;
  limits.max_expanded_bytes = 8U << 20;
  const zip_fixture::Result result =
      zip_fixture::extract(kOdsFormat, odf(kSpreadsheetType, content("spreadsheet", sheet), meta("")), "e.ods", limits);
  EXPECT_EQ(result.warnings,
            (std::vector<std::string>{"/x/e.ods: more than 8388608 bytes of text in tables: the rest are left out"}));
  EXPECT_LT(result.document().text.size(), 8U << 20);
  EXPECT_GT(result.document().text.size(), 4U << 20);
}

// --- ODP -------------------------------------------------------------------------------------

const std::string kPages =
    R"(<draw:page draw:name="page1" draw:style-name="dp1" draw:master-page-name="Default">)"
    R"(<draw:frame presentation:style-name="pr1" draw:layer="layout" svg:width="25cm" presentation:class="title">)"
    R"(<draw:text-box><text:p>Launch <text:span>Plan</text:span></text:p></draw:text-box></draw:frame>)"
    R"(<draw:frame presentation:class="subtitle"><draw:text-box><text:p>Spring 2024</text:p></draw:text-box></draw:frame>)"
    R"(<draw:frame presentation:class="page-number"><draw:text-box><text:p><text:page-number>1</text:page-number></text:p></draw:text-box></draw:frame>)"
    R"(<presentation:notes draw:style-name="dp2"><draw:page-thumbnail draw:layer="layout" presentation:class="page"/>)"
    R"(<draw:frame presentation:class="notes"><draw:text-box><text:p>Say hello</text:p><text:p>Then the plan</text:p>)"
    R"(</draw:text-box></draw:frame></presentation:notes></draw:page>)"
    R"(<draw:page draw:name="page2"><draw:frame presentation:class="title"><draw:text-box><text:p>Budget</text:p></draw:text-box></draw:frame>)"
    R"(<draw:frame presentation:class="outline"><draw:text-box><text:list><text:list-item><text:p>First point</text:p></text:list-item>)"
    R"(<text:list-item><text:p>Second point</text:p></text:list-item></text:list></draw:text-box></draw:frame>)"
    R"(<draw:custom-shape draw:style-name="gr2"><text:p>Shape text</text:p><draw:enhanced-geometry draw:type="rectangle"/></draw:custom-shape>)"
    R"(<draw:frame><table:table><table:table-row><table:table-cell><text:p>Q1</text:p></table:table-cell><table:table-cell>)"
    R"(<text:p>Q2</text:p></table:table-cell></table:table-row></table:table></draw:frame></draw:page>)"
    R"(<draw:page draw:name="page3"/><presentation:settings presentation:mouse-visible="false"/>)";

TEST(Odp, SlidesNotesAndSections) {
  const zip_fixture::Result result =
      zip_fixture::extract(kOdpFormat, odf(kPresentationType, content("presentation", kPages), meta("")), "f.odp");
  const ExtractedDocument& doc = result.document();
  EXPECT_EQ(doc.text,
            "Launch Plan\nSpring 2024\n\nNotes:\nSay hello\nThen the plan\n\n"
            "Budget\nFirst point\nSecond point\nShape text\nQ1\tQ2");
  EXPECT_EQ(zip_fixture::labels(doc), (std::vector<std::string>{"slide 1", "slide 2", "slide 3"}));
  EXPECT_EQ(section_text(doc, "slide 1"), "Launch Plan\nSpring 2024\n\nNotes:\nSay hello\nThen the plan\n\n");
  EXPECT_EQ(section_text(doc, "slide 2"), "Budget\nFirst point\nSecond point\nShape text\nQ1\tQ2");
  EXPECT_EQ(section_text(doc, "slide 3"), "");
  EXPECT_EQ(metadata(doc, "slides"), "3");
  // Without a title in meta.xml: the first slide's title frame.
  EXPECT_EQ(doc.title, "Launch Plan");
  EXPECT_EQ(
      zip_fixture::extract(kOdpFormat, odf(kPresentationType, content("presentation", kPages), meta("Deck")), "f.odp")
          .document()
          .title,
      "Deck");
}

// --- signatures ------------------------------------------------------------------------------

// The first bytes of a file as LibreOffice writes it: "mimetype" stored, no extra field, sizes in the header.
std::string libreoffice_head(const std::string& media_type) {
  std::string head("PK\x03\x04\x14\x00\x00\x08\x00\x00\x00\x00\x21\x58", 14);
  head += std::string("\x5e\xc6\x32\x0c", 4);  // CRC-32 (not checked)
  const char size[4] = {static_cast<char>(media_type.size()), 0, 0, 0};
  head.append(size, 4).append(size, 4);
  head += std::string("\x08\x00\x00\x00", 4) + "mimetype" + media_type;
  return head + std::string("PK\x03\x04\x14\x00\x00\x08\x08\x00", 10) + "rest of the file";
}

TEST(OpenDocumentSniff, MediaTypeInFirstMember) {
  EXPECT_TRUE(kOdtFormat.sniff(libreoffice_head(kTextType)));
  EXPECT_TRUE(kOdsFormat.sniff(libreoffice_head(kSpreadsheetType)));
  EXPECT_TRUE(kOdpFormat.sniff(libreoffice_head(kPresentationType)));
  EXPECT_FALSE(kOdtFormat.sniff(libreoffice_head(kSpreadsheetType)));
  EXPECT_FALSE(kOdsFormat.sniff(libreoffice_head(kTextType)));
  EXPECT_FALSE(kOdpFormat.sniff(libreoffice_head(kTextType)));
  // Templates read alike; another media type that starts the same does not.
  EXPECT_TRUE(kOdtFormat.sniff(libreoffice_head(kTextType + "-template")));
  EXPECT_FALSE(kOdtFormat.sniff(libreoffice_head(kTextType + "-web")));
  // libarchive's writer adds an extra field and a data descriptor; still found.
  const std::string written = odf(kSpreadsheetType, content("spreadsheet", ""), meta(""));
  EXPECT_TRUE(kOdsFormat.sniff(written.substr(0, kSniffBytes)));
  EXPECT_FALSE(kOdtFormat.sniff(written.substr(0, kSniffBytes)));
  // "mimetype" compressed, or not first: not this format by content.
  EXPECT_FALSE(kOdtFormat.sniff(zip_fixture::zip({{"mimetype", kTextType}, {"content.xml", "<x/>"}})));
  EXPECT_FALSE(kOdtFormat.sniff(zip_fixture::zip({{.path = "content.xml", .data = "<x/>", .stored = true},
                                                  {.path = "mimetype", .data = kTextType, .stored = true}})));
  EXPECT_FALSE(kOdtFormat.sniff(std::string("PK\x03\x04", 4)));
  EXPECT_FALSE(kOdtFormat.sniff(""));
}

TEST(OpenDocumentSniff, Descriptions) {
  EXPECT_EQ(kOdtFormat.name, "odt");
  EXPECT_EQ(kOdtFormat.label, "OpenDocument text (ODT)");
  EXPECT_EQ(kOdsFormat.name, "ods");
  EXPECT_EQ(kOdsFormat.label, "OpenDocument spreadsheet (ODS)");
  EXPECT_EQ(kOdpFormat.name, "odp");
  EXPECT_EQ(kOdpFormat.label, "OpenDocument presentation (ODP)");
  EXPECT_EQ(kOdtFormat.extensions, (std::vector<std::string_view>{".odt"}));
  EXPECT_EQ(kOdsFormat.extensions, (std::vector<std::string_view>{".ods"}));
  EXPECT_EQ(kOdpFormat.extensions, (std::vector<std::string_view>{".odp"}));
}

}  // namespace opendocument_test
}  // namespace
}  // namespace sieve::search
