// The Office Open XML readers (DOCX, XLSX, PPTX) on packages built here as Word, Excel and PowerPoint write them.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <string>
#include <vector>

#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "sieve/error.hpp"
#include "zip_fixture.hpp"

namespace sieve::search {
namespace {
namespace office_test {

using zip_fixture::Member;
using zip_fixture::metadata;
using zip_fixture::section_text;

const std::string kXmlDeclaration = R"(<?xml version="1.0" encoding="UTF-8" standalone="yes"?>)"
                                    "\n";

// --- package parts -------------------------------------------------------------------------

std::string content_types(const std::string& overrides) {
  return kXmlDeclaration +
         R"(<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">)"
         R"(<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>)"
         R"(<Default Extension="xml" ContentType="application/xml"/>)" +
         overrides + "</Types>";
}

// A relationships part: (Id, type name, target) triples; type names are completed to Office's URIs.
std::string relationships(const std::vector<std::vector<std::string>>& entries) {
  std::string out =
      kXmlDeclaration + R"(<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">)";
  for (const auto& entry : entries) {
    const std::string base = entry[1] == "core-properties"
                                 ? "http://schemas.openxmlformats.org/package/2006/relationships/metadata/"
                                 : "http://schemas.openxmlformats.org/officeDocument/2006/relationships/";
    out += R"(<Relationship Id=")" + entry[0] + R"(" Type=")" + base + entry[1] + R"(" Target=")" + entry[2] +
           (entry.size() > 3 ? R"(" TargetMode=")" + entry[3] : "") + R"("/>)";
  }
  return out + "</Relationships>";
}

std::string core_properties(const std::string& title) {
  return kXmlDeclaration +
         R"(<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" )"
         R"(xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" )"
         R"(xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">)"
         "<dc:title>" +
         title +
         "</dc:title><dc:subject></dc:subject><dc:creator>Ada  Lovelace</dc:creator>"
         "<cp:keywords></cp:keywords><cp:lastModifiedBy>Charles Babbage</cp:lastModifiedBy><cp:revision>3</cp:revision>"
         R"(<dcterms:created xsi:type="dcterms:W3CDTF">2024-01-02T03:04:05Z</dcterms:created>)"
         R"(<dcterms:modified xsi:type="dcterms:W3CDTF">2024-02-03T04:05:06Z</dcterms:modified>)"
         "</cp:coreProperties>";
}

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// --- DOCX ----------------------------------------------------------------------------------

const std::string kWordNamespaces =
    R"(xmlns:wpc="http://schemas.microsoft.com/office/word/2010/wordprocessingCanvas" )"
    R"(xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" )"
    R"(xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" )"
    R"(xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" )"
    R"(xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" )"
    R"(xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" )"
    R"(xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" )"
    R"(xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" )"
    R"(xmlns:v="urn:schemas-microsoft-com:vml" mc:Ignorable="w14 wp14")";

std::string word_document(const std::string& body) {
  return kXmlDeclaration + "<w:document " + kWordNamespaces + "><w:body>" + body +
         R"(<w:sectPr><w:headerReference w:type="default" r:id="rId8"/><w:pgSz w:w="12240" w:h="15840"/></w:sectPr>)"
         "</w:body></w:document>";
}

std::string paragraph(const std::string& text, const std::string& style = "") {
  const std::string properties = style.empty() ? "" : R"(<w:pPr><w:pStyle w:val=")" + style + R"("/></w:pPr>)";
  return "<w:p>" + properties + R"(<w:r><w:rPr><w:lang w:val="en-GB"/></w:rPr><w:t>)" + text + "</w:t></w:r></w:p>";
}

std::string notes_part(const std::string& kind, const std::string& text) {
  // Word keeps two separator "notes" (ids -1 and 0) before the real ones.
  return kXmlDeclaration + "<w:" + kind + "s " + kWordNamespaces + ">" + "<w:" + kind +
         R"( w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:)" + kind + ">" + "<w:" + kind +
         R"( w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:)" + kind +
         ">" + "<w:" + kind +
         R"( w:id="1"><w:p><w:pPr><w:pStyle w:val="FootnoteText"/></w:pPr><w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> )" +
         text + "</w:t></w:r></w:p></w:" + kind + ">" + "</w:" + kind + "s>";
}

// Styles as a German Word writes them: translated ids, built-in names.
const std::string kGermanStyles =
    kXmlDeclaration + "<w:styles " + kWordNamespaces + ">" +
    R"(<w:style w:type="paragraph" w:default="1" w:styleId="Standard"><w:name w:val="Normal"/></w:style>)"
    R"(<w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/><w:basedOn w:val="Standard"/></w:style>)"
    R"(<w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/></w:style>)"
    R"(<w:style w:type="character" w:styleId="Titel2"><w:name w:val="Title"/></w:style>)"
    "</w:styles>";

const std::string kDocumentRelationships = relationships({
    {"rId1", "styles", "styles.xml"},
    {"rId4", "footnotes", "footnotes.xml"},
    {"rId5", "endnotes", "endnotes.xml"},
    {"rId8", "header", "header1.xml"},
    {"rId9", "hyperlink", "https://example.com/", "External"},
});

// A package as Word writes it, with `document` as word/document.xml and `extra` parts after.
std::string docx(const std::string& document, const std::string& title = "Quarterly Report",
                 std::vector<Member> extra = {}) {
  std::vector<Member> members = {
      {"[Content_Types].xml",
       content_types(
           R"(<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>)")},
      {"_rels/.rels", relationships({{"rId3", "extended-properties", "docProps/app.xml"},
                                     {"rId2", "core-properties", "docProps/core.xml"},
                                     {"rId1", "officeDocument", "word/document.xml"}})},
      {"word/document.xml", document},
      {"word/_rels/document.xml.rels", kDocumentRelationships},
      {"word/styles.xml", kGermanStyles},
      {"word/footnotes.xml", notes_part("footnote", "A footnote.")},
      {"word/endnotes.xml", notes_part("endnote", "An endnote.")},
      {"word/header1.xml",
       kXmlDeclaration + "<w:hdr " + kWordNamespaces + ">" + paragraph("Running header") + "</w:hdr>"},
      {"docProps/core.xml", core_properties(title)},
  };
  for (Member& member : extra) members.push_back(std::move(member));
  return zip_fixture::zip(members);
}

const std::string kBody =
    paragraph("Annual  Plan", "Titel") + paragraph("Introduction", "berschrift1") +
    // Runs split mid-word, a tab, a line break, a non-breaking hyphen.
    R"(<w:p><w:r><w:t xml:space="preserve">Hello </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>wor</w:t></w:r>)"
    R"(<w:r><w:t>ld</w:t></w:r><w:r><w:tab/><w:t>after tab</w:t><w:br/><w:t xml:space="preserve">next line </w:t></w:r>)"
    R"(<w:r><w:t>e</w:t><w:noBreakHyphen/><w:t>mail</w:t></w:r></w:p>)"
    // Tracked changes: inserted text is there, deleted text is not; a field's instruction is not text, its result is.
    R"(<w:p><w:ins w:id="1" w:author="A"><w:r><w:t xml:space="preserve">Kept </w:t></w:r></w:ins>)"
    R"(<w:del w:id="2" w:author="A"><w:r><w:delText>deleted </w:delText></w:r></w:del>)"
    R"(<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> PAGE </w:instrText></w:r>)"
    R"(<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>7</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>)"
    R"(<w:r><w:footnoteReference w:id="1"/></w:r></w:p>)"
    // A table: a tab between cells, a line per row; a cell's paragraphs on its row's line; an empty cell.
    R"(<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/></w:tblPr><w:tblGrid><w:gridCol w:w="4675"/><w:gridCol w:w="4675"/><w:gridCol w:w="100"/></w:tblGrid>)"
    R"(<w:tr><w:tc><w:tcPr><w:tcW w:w="4675" w:type="dxa"/></w:tcPr>)" +
    paragraph("Name") + "</w:tc><w:tc>" + paragraph("Age") + "</w:tc><w:tc>" + paragraph("Town") +
    "</w:tc></w:tr><w:tr><w:tc>" + paragraph("Ada") + paragraph("Lovelace") + "</w:tc><w:tc><w:p/></w:tc><w:tc>" +
    paragraph("London") + "</w:tc></w:tr></w:tbl>" +
    // A text box: Word writes it twice, as DrawingML and as VML for older readers.
    R"(<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wp:anchor><a:graphic><a:graphicData>)"
    R"(<wps:wsp><wps:txbx><w:txbxContent>)" +
    paragraph("Boxed text") +
    R"(</w:txbxContent></wps:txbx></wps:wsp>)"
    R"(</a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice><mc:Fallback><w:pict><v:shape><v:textbox>)"
    R"(<w:txbxContent>)" +
    paragraph("Boxed text") +
    R"(</w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback>)"
    R"(</mc:AlternateContent></w:r></w:p>)"
    // A content control still showing its placeholder.
    R"(<w:sdt><w:sdtPr><w:id w:val="5"/><w:showingPlcHdr/></w:sdtPr><w:sdtContent>)" +
    paragraph("Click or tap here to enter text.") + "</w:sdtContent></w:sdt>" +
    R"(<w:sdt><w:sdtPr><w:id w:val="6"/></w:sdtPr><w:sdtContent>)" + paragraph("Filled in.") +
    "</w:sdtContent></w:sdt>" + "<w:p/>" + paragraph("The end.");

TEST(Docx, TextInOrder) {
  const zip_fixture::Result result = zip_fixture::extract(kDocxFormat, docx(word_document(kBody)), "a.docx");
  const ExtractedDocument& doc = result.document();
  EXPECT_EQ(doc.key, "/x/a.docx");
  EXPECT_EQ(doc.text,
            "Annual Plan\n\nIntroduction\n\nHello world\tafter tab\nnext line e-mail\n\nKept 7\n\n"
            "Name\tAge\tTown\nAda Lovelace\t\tLondon\n\nBoxed text\n\nFilled in.\n\nThe end.\n\n"
            "A footnote.\n\nAn endnote.");
  // No sections for a Word document; headers are not read.
  EXPECT_TRUE(doc.sections.empty());
  EXPECT_EQ(doc.text.find("Running header"), std::string::npos);
  EXPECT_TRUE(result.errors.empty());
  EXPECT_TRUE(result.warnings.empty());
}

TEST(Docx, TitleAndMetadataFromCoreProperties) {
  const ExtractedDocument doc =
      zip_fixture::extract(kDocxFormat, docx(word_document(kBody), " Quarterly\n Report "), "a.docx").document();
  EXPECT_EQ(doc.title, "Quarterly Report");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"author", "Ada Lovelace"},
      {"created", "2024-01-02T03:04:05Z"},
      {"modified", "2024-02-03T04:05:06Z"},
      {"modified_by", "Charles Babbage"},
  };
  EXPECT_EQ(doc.metadata, expected);
}

TEST(Docx, TitleFromTitleStyleThenHeading) {
  // Without a title in core.xml: the paragraph styled Title (its id translated, found by its name in styles.xml).
  EXPECT_EQ(zip_fixture::extract(kDocxFormat, docx(word_document(kBody), ""), "a.docx").document().title,
            "Annual Plan");
  // Without one: the first level-1 heading, even after other paragraphs.
  const std::string body = paragraph("Preface") + paragraph("Chapter One", "berschrift1") + paragraph("Text");
  EXPECT_EQ(zip_fixture::extract(kDocxFormat, docx(word_document(body), ""), "a.docx").document().title, "Chapter One");
  // Without styles.xml, Word's English ids.
  const std::string english = paragraph("Text") + paragraph("Heading", "Heading1") + paragraph("Big", "Title");
  std::string package = zip_fixture::zip({
      {"[Content_Types].xml", content_types("")},
      {"_rels/.rels", relationships({{"rId1", "officeDocument", "word/document.xml"}})},
      {"word/document.xml", word_document(english)},
  });
  const ExtractedDocument doc = zip_fixture::extract(kDocxFormat, package, "a.docx").document();
  EXPECT_EQ(doc.title, "Big");
  EXPECT_EQ(doc.text, "Text\n\nHeading\n\nBig");
  EXPECT_TRUE(doc.metadata.empty());
}

TEST(Docx, MainPartNamedByRelationship) {
  // Some writers name the main part otherwise; _rels/.rels says which it is (here with a leading slash).
  const std::string package = zip_fixture::zip({
      {"[Content_Types].xml", content_types("")},
      {"_rels/.rels", relationships({{"rId1", "officeDocument", "/word/document2.xml"}})},
      {"word/document2.xml", word_document(paragraph("Second name"))},
  });
  EXPECT_EQ(zip_fixture::extract(kDocxFormat, package, "a.docx").document().text, "Second name");
}

TEST(Docx, MissingMainPart) {
  const std::string package = zip_fixture::zip({
      {"[Content_Types].xml", content_types("")},
      {"word/styles.xml", kGermanStyles},
  });
  EXPECT_EQ(zip_fixture::error_of(kDocxFormat, package, "a.docx", ErrorCode::kParse),
            "not a DOCX file: word/document.xml is missing");
}

TEST(Docx, NotAZipFile) {
  const std::string message = zip_fixture::error_of(kDocxFormat, "plain text, not a ZIP", "a.docx", ErrorCode::kParse);
  EXPECT_EQ(message.rfind("/x/a.docx: ", 0), 0U) << message;
  // What Office saves with a password: an OLE compound file.
  const std::string ole = std::string("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1", 8) + std::string(504, '\0');
  EXPECT_NE(zip_fixture::error_of(kDocxFormat, ole, "a.docx", ErrorCode::kUnsupported).find("password-protected"),
            std::string::npos);
}

TEST(Docx, MalformedXml) {
  // The declaration is line 1; the body is left open on line 3, and the data ends on line 4.
  const std::string document = kXmlDeclaration + "<w:document " + kWordNamespaces + ">\n<w:body>\n<w:p></w:p>";
  const std::string message = zip_fixture::error_of(kDocxFormat, docx(document), "a.docx", ErrorCode::kParse);
  EXPECT_EQ(message.rfind("word/document.xml: malformed XML: ", 0), 0U) << message;
  EXPECT_NE(message.find("(line 4)"), std::string::npos) << message;
}

TEST(Docx, MalformedNotesReportedRestRead) {
  std::string package = zip_fixture::zip({
      {"[Content_Types].xml", content_types("")},
      {"_rels/.rels", relationships({{"rId1", "officeDocument", "word/document.xml"}})},
      {"word/document.xml", word_document(paragraph("Body text"))},
      {"word/_rels/document.xml.rels", kDocumentRelationships},
      {"word/footnotes.xml", "<w:footnotes><w:footnote>"},
  });
  const zip_fixture::Result result = zip_fixture::extract(kDocxFormat, package, "a.docx");
  EXPECT_EQ(result.document().text, "Body text");
  ASSERT_EQ(result.errors.size(), 1U);
  EXPECT_EQ(result.errors[0].rfind("/x/a.docx: word/footnotes.xml: malformed XML: ", 0), 0U) << result.errors[0];
}

TEST(Docx, EntityDeclarationRefused) {
  const std::string document = kXmlDeclaration + R"(<!DOCTYPE w:document [<!ENTITY lol "lol lol lol">]>)" +
                               "<w:document " + kWordNamespaces + "><w:body>" + paragraph("&lol;") +
                               "</w:body></w:document>";
  EXPECT_EQ(zip_fixture::error_of(kDocxFormat, docx(document), "a.docx", ErrorCode::kUnsupported),
            "word/document.xml: XML that declares entities (<!ENTITY) is not read");
}

TEST(Docx, DeepNesting) {
  // 100,000 levels of nested content controls: read without recursion (libxml2 with XML_PARSE_HUGE, xml::walk).
  const std::string body =
      zip_fixture::nested("<w:sdt><w:sdtContent>", "</w:sdtContent></w:sdt>", 100000, paragraph("deep inside"));
  const ExtractedDocument doc =
      zip_fixture::extract(kDocxFormat, docx(word_document(body + paragraph("after"))), "a.docx").document();
  EXPECT_EQ(doc.text, "deep inside\n\nafter\n\nA footnote.\n\nAn endnote.");
}

TEST(Docx, CompressionBombRefusedInBoundedMemory) {
  // 300 MB of zeros in one member: refused as it is read, once it expands past the limits, not after.
  const std::string package =
      docx(word_document(paragraph("x")), "t",
           {{.path = "word/media/zeros.bin", .data = "", .stored = false, .zeros = 300u << 20}});
  EXPECT_LT(package.size(), 2U << 20);
  const long before = peak_rss_kib();
  const std::string message = zip_fixture::error_of(kDocxFormat, package, "a.docx", ErrorCode::kInvalidInput);
  EXPECT_NE(message.find("compression bomb"), std::string::npos) << message;
  // Read whole, the member alone would take 300 MB (and twice that while its string grows).
  EXPECT_LT(peak_rss_kib() - before, 200 * 1024) << "KiB more at peak";
  // The limit on all a file expands to, with the ratio out of the way.
  ExtractLimits limits;
  limits.max_ratio = 1'000'000;
  limits.max_expanded_bytes = 64U << 20;
  const std::string total = zip_fixture::error_of(kDocxFormat, package, "a.docx", ErrorCode::kInvalidInput, limits);
  EXPECT_NE(total.find("expands to more than 67108864 bytes"), std::string::npos) << total;
}

// --- XLSX ----------------------------------------------------------------------------------

const std::string kSheetNamespaces =
    R"(xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" )"
    R"(xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" )"
    R"(xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x14ac xr xr2 xr3" )"
    R"(xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac")";

std::string worksheet(const std::string& rows) {
  return kXmlDeclaration + "<worksheet " + kSheetNamespaces +
         R"(><dimension ref="A1:D4"/><sheetViews><sheetView workbookViewId="0"/></sheetViews>)" +
         R"(<sheetFormatPr defaultRowHeight="15" x14ac:dyDescent="0.25"/><sheetData>)" + rows +
         R"(</sheetData><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>)";
}

const std::string kWorkbook =
    kXmlDeclaration + "<workbook " + kSheetNamespaces +
    R"(><fileVersion appName="xl" lastEdited="7"/><workbookPr defaultThemeVersion="166925"/><bookViews><workbookView/></bookViews>)"
    // The workbook's order is the sheets' order, whatever their parts are called.
    R"(<sheets><sheet name="Budget 2024" sheetId="2" r:id="rId2"/><sheet name="Notes" sheetId="1" r:id="rId1"/></sheets>)"
    R"(<calcPr calcId="191029"/></workbook>)";

const std::string kSharedStrings =
    kXmlDeclaration +
    R"(<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="6" uniqueCount="5">)"
    "<si><t>Item</t></si><si><t>Cost</t></si>"
    // Rich text: runs joined as they are.
    R"(<si><r><rPr><b/><sz val="11"/></rPr><t xml:space="preserve">Rent </t></r><r><t>(monthly)</t></r></si>)"
    // Japanese text with its phonetic reading, which repeats it.
    R"(<si><t>東京</t><rPh sb="0" eb="2"><t>トウキョウ</t></rPh><phoneticPr fontId="1"/></si>)"
    "<si><t>Line one\nline two</t></si></sst>";

const std::string kBudgetSheet = worksheet(
    R"(<row r="1" spans="1:4"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" s="3"/><c r="D1" s="3"/></row>)"
    R"(<row r="2" spans="1:4"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>1250.5</v></c><c r="C2" t="b"><v>1</v></c></row>)"
    // A gap: columns B and C empty; a formula's cached result; an inline string; an error value.
    R"(<row r="4" spans="1:4"><c r="A4" t="s"><v>3</v></c><c r="D4" t="str"><f>A4&amp;"!"</f><v>東京!</v></c></row>)"
    R"(<row r="5"><c r="B5" t="inlineStr"><is><t>inline </t><r><t>rich</t></r></is></c><c r="C5" t="e"><v>#DIV/0!</v></c></row>)"
    R"(<row r="6"><c r="A6" t="s"><v>4</v></c><c r="B6" s="1"><f>SUM(B1:B5)</f><v>1250.5</v></c></row>)"
    // Empty rows and styled empty cells add nothing.
    R"(<row r="7" s="2" customFormat="1"><c r="A7" s="2"/></row><row r="8"/>)");

const std::string kNotesSheet =
    worksheet(R"(<row r="1"><c r="A1" t="inlineStr"><is><t>Remember the milk</t></is></c></row>)");

std::vector<Member> xlsx_members(const std::string& budget, const std::string& notes) {
  return {
      {"[Content_Types].xml",
       content_types(
           R"(<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>)")},
      {"_rels/.rels", relationships({{"rId3", "extended-properties", "docProps/app.xml"},
                                     {"rId2", "core-properties", "docProps/core.xml"},
                                     {"rId1", "officeDocument", "xl/workbook.xml"}})},
      {"xl/workbook.xml", kWorkbook},
      {"xl/_rels/workbook.xml.rels", relationships({{"rId3", "theme", "theme/theme1.xml"},
                                                    {"rId2", "worksheet", "worksheets/sheet2.xml"},
                                                    {"rId1", "worksheet", "/xl/worksheets/sheet1.xml"},
                                                    {"rId5", "sharedStrings", "sharedStrings.xml"}})},
      {"xl/worksheets/sheet1.xml", notes},
      {"xl/worksheets/sheet2.xml", budget},
      {"xl/sharedStrings.xml", kSharedStrings},
      {"docProps/core.xml", core_properties("")},
  };
}

TEST(Xlsx, SheetsInWorkbookOrder) {
  const zip_fixture::Result result =
      zip_fixture::extract(kXlsxFormat, zip_fixture::zip(xlsx_members(kBudgetSheet, kNotesSheet)), "b.xlsx");
  const ExtractedDocument& doc = result.document();
  EXPECT_EQ(doc.text,
            "Budget 2024\nItem\tCost\nRent (monthly)\t1250.5\t1\n東京\t\t\t東京!\n\tinline rich\t#DIV/0!\n"
            "Line one line two\t1250.5\n\nNotes\nRemember the milk");
  EXPECT_EQ(zip_fixture::labels(doc), (std::vector<std::string>{"sheet Budget 2024", "sheet Notes"}));
  EXPECT_EQ(section_text(doc, "sheet Budget 2024").rfind("Budget 2024\nItem\tCost\n", 0), 0U);
  EXPECT_EQ(section_text(doc, "sheet Notes"), "Notes\nRemember the milk");
  EXPECT_EQ(metadata(doc, "sheets"), "2");
  EXPECT_EQ(metadata(doc, "author"), "Ada Lovelace");
  EXPECT_EQ(doc.title, "");
  EXPECT_TRUE(result.errors.empty());
}

TEST(Xlsx, BrokenSheetReportedOthersRead) {
  const zip_fixture::Result result = zip_fixture::extract(
      kXlsxFormat, zip_fixture::zip(xlsx_members(kBudgetSheet, "<worksheet><sheetData><row>")), "b.xlsx");
  EXPECT_EQ(zip_fixture::section_text(result.document(), "sheet Notes"), "Notes");
  EXPECT_NE(result.document().text.find("Rent (monthly)"), std::string::npos);
  ASSERT_EQ(result.errors.size(), 1U);
  EXPECT_EQ(result.errors[0].rfind("/x/b.xlsx: xl/worksheets/sheet1.xml: malformed XML: ", 0), 0U) << result.errors[0];

  // A sheet whose part is missing, and a sheet that declares entities (streamed, and refused the same way).
  std::vector<Member> members = xlsx_members(kBudgetSheet, kNotesSheet);
  members.erase(members.begin() + 4);
  members[4].data = R"(<!DOCTYPE worksheet [<!ENTITY e "x">]>)" + kBudgetSheet.substr(kXmlDeclaration.size());
  const zip_fixture::Result broken = zip_fixture::extract(kXlsxFormat, zip_fixture::zip(members), "b.xlsx");
  EXPECT_EQ(broken.document().text, "Budget 2024\n\nNotes");
  EXPECT_EQ(broken.errors, (std::vector<std::string>{
                               "/x/b.xlsx: xl/worksheets/sheet2.xml: XML that declares entities (<!ENTITY) is not read",
                               "/x/b.xlsx: sheet \"Notes\": its part xl/worksheets/sheet1.xml is missing"}));
}

TEST(Xlsx, MissingOrMalformedWorkbook) {
  std::vector<Member> members = xlsx_members(kBudgetSheet, kNotesSheet);
  members.erase(members.begin() + 2);
  EXPECT_EQ(zip_fixture::error_of(kXlsxFormat, zip_fixture::zip(members), "b.xlsx", ErrorCode::kParse),
            "not an XLSX file: xl/workbook.xml is missing");
  members = xlsx_members(kBudgetSheet, kNotesSheet);
  members[2].data = "<workbook><sheets>";
  const std::string message =
      zip_fixture::error_of(kXlsxFormat, zip_fixture::zip(members), "b.xlsx", ErrorCode::kParse);
  EXPECT_EQ(message.rfind("xl/workbook.xml: malformed XML: ", 0), 0U) << message;
}

TEST(Xlsx, DeepNestingInSheet) {
  const std::string rows = zip_fixture::nested("<extLst>", "</extLst>", 100000, "") +
                           R"(<row r="1"><c r="A1" t="inlineStr"><is><t>still read</t></is></c></row>)";
  const ExtractedDocument doc =
      zip_fixture::extract(kXlsxFormat, zip_fixture::zip(xlsx_members(worksheet(rows), kNotesSheet)), "b.xlsx")
          .document();
  EXPECT_EQ(section_text(doc, "sheet Budget 2024"), "Budget 2024\nstill read\n\n");
}

TEST(Xlsx, CellLimit) {
  // 5,004 cells with text with a limit of 5,000: those after it are left out, with a warning.
  constexpr int kRows = 50;
  constexpr std::string_view kTen =
      "<c><v>1</v></c><c><v>2</v></c><c><v>3</v></c><c><v>4</v></c><c><v>5</v></c>"
      "<c><v>6</v></c><c><v>7</v></c><c><v>8</v></c><c><v>9</v></c><c><v>0</v></c>";
  std::string rows = "<row><c><v>a</v></c><c><v>b</v></c><c><v>c</v></c><c><v>d</v></c></row>";
  rows.reserve(static_cast<std::size_t>(kRows) * (kTen.size() * 10 + 11));
  for (int i = 0; i < kRows; ++i) {
    rows += "<row>";
    for (int j = 0; j < 10; ++j) rows += kTen;
    rows += "</row>";
  }
  ExtractLimits limits;
  limits.max_cells = 5000;
  const zip_fixture::Result result =
      zip_fixture::extract(kXlsxFormat, zip_fixture::zip(xlsx_members(worksheet(rows), kNotesSheet)), "b.xlsx", limits);
  EXPECT_EQ(result.warnings, (std::vector<std::string>{"/x/b.xlsx: more than 5000 cells: the rest are left out"}));
  const std::string budget = section_text(result.document(), "sheet Budget 2024");
  // The name, the first row, 49 full rows and the last cut after 96 cells; the sheets after still there.
  EXPECT_EQ(std::count(budget.begin(), budget.end(), '\n'), 51 + 2);
  EXPECT_EQ(budget.rfind("Budget 2024\na\tb\tc\td\n1\t2\t3", 0), 0U);
  ASSERT_TRUE(budget.ends_with("\n\n"));
  const std::string_view rows_text = std::string_view(budget).substr(0, budget.size() - 2);
  const std::string_view last = rows_text.substr(rows_text.rfind('\n') + 1);
  EXPECT_EQ(std::count(last.begin(), last.end(), '\t') + 1, 96);
  EXPECT_TRUE(last.ends_with("\t9\t0\t1\t2\t3\t4\t5\t6"));
  EXPECT_EQ(section_text(result.document(), "sheet Notes"), "Notes");
}

TEST(Xlsx, SharedStringsCannotMultiplyText) {
  // A cell of a few bytes shows a shared string of a mebibyte; 20 of them would be 20 MiB of text from a file
  // of a few kilobytes. Text past the file's expansion limit is left out, with a warning.
  std::vector<Member> members = xlsx_members(kBudgetSheet, kNotesSheet);
  members[6].data = R"(<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>)" +
                    std::string(1U << 20, 'w') + "</t></si></sst>";
  std::string row = R"(<row r="1">)";
  for (int i = 0; i < 20; ++i) row += R"(<c t="s"><v>0</v></c>)";
  members[5].data = worksheet(row + "</row>");
  ExtractLimits limits;
  limits.max_ratio = 1'000'000;
  limits.max_expanded_bytes = 8U << 20;
  const zip_fixture::Result result = zip_fixture::extract(kXlsxFormat, zip_fixture::zip(members), "b.xlsx", limits);
  EXPECT_EQ(result.warnings,
            (std::vector<std::string>{"/x/b.xlsx: more than 8388608 bytes of text: the rest are left out"}));
  EXPECT_EQ(std::count(result.document().text.begin(), result.document().text.end(), 'w'), 8 << 20);
}

// --- PPTX ----------------------------------------------------------------------------------

const std::string kSlideNamespaces = R"(xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" )"
                                     R"(xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" )"
                                     R"(xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main")";

// A shape with paragraphs (each a vector of runs); `placeholder`: its p:ph type, "" for none.
std::string shape(const std::string& placeholder, const std::vector<std::vector<std::string>>& paragraphs) {
  std::string out =
      R"(<p:sp><p:nvSpPr><p:cNvPr id="2" name="Shape"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr>)";
  if (!placeholder.empty()) out += R"(<p:ph type=")" + placeholder + R"("/>)";
  out += R"(</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/>)";
  for (const auto& runs : paragraphs) {
    out += "<a:p>";
    for (const std::string& run : runs) out += R"(<a:r><a:rPr lang="en-US" dirty="0"/><a:t>)" + run + "</a:t></a:r>";
    out += R"(<a:endParaRPr lang="en-US"/></a:p>)";
  }
  return out + "</p:txBody></p:sp>";
}

std::string slide(const std::string& shapes, const std::string& root = "sld") {
  return kXmlDeclaration + "<p:" + root + " " + kSlideNamespaces + "><p:cSld><p:spTree>" +
         R"(<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>)" + shapes +
         "</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:" + root + ">";
}

const std::string kTable =
    R"(<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Table 3"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>)"
    R"(<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblGrid><a:gridCol w="1"/><a:gridCol w="1"/></a:tblGrid>)"
    R"(<a:tr h="370840"><a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>Q1</a:t></a:r></a:p></a:txBody></a:tc>)"
    R"(<a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>Q2</a:t></a:r></a:p></a:txBody></a:tc></a:tr>)"
    R"(<a:tr h="370840"><a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>10</a:t></a:r></a:p><a:p><a:r><a:t>units</a:t></a:r></a:p></a:txBody></a:tc>)"
    R"(<a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>20</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>)";

const std::string kSlideNumber =
    R"(<p:sp><p:nvSpPr><p:cNvPr id="9" name="Slide Number"/><p:cNvSpPr/><p:nvPr><p:ph type="sldNum" sz="quarter" idx="12"/></p:nvPr></p:nvSpPr>)"
    R"(<p:spPr/><p:txBody><a:bodyPr/><a:p><a:fld id="{B6F15528}" type="slidenum"><a:t>2</a:t></a:fld></a:p></p:txBody></p:sp>)";

std::vector<Member> pptx_members(const std::string& title = "") {
  const std::string notes = slide(
      R"(<p:sp><p:nvSpPr><p:cNvPr id="2" name="Slide Image"/><p:cNvSpPr/><p:nvPr><p:ph type="sldImg"/></p:nvPr></p:nvSpPr><p:spPr/></p:sp>)" +
          shape("body", {{"Mention the ", "budget"}, {"Then questions"}}) + kSlideNumber,
      "notes");
  return {
      {"[Content_Types].xml",
       content_types(
           R"(<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>)")},
      {"_rels/.rels", relationships({{"rId2", "core-properties", "docProps/core.xml"},
                                     {"rId1", "officeDocument", "ppt/presentation.xml"}})},
      {"docProps/core.xml", core_properties(title)},
      {"ppt/presentation.xml",
       kXmlDeclaration + "<p:presentation " + kSlideNamespaces +
           R"( saveSubsetFonts="1"><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>)"
           R"(<p:sldIdLst><p:sldId id="256" r:id="rId7"/><p:sldId id="257" r:id="rId3"/><p:sldId id="258" r:id="rId2"/></p:sldIdLst>)"
           R"(<p:sldSz cx="12192000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>)"},
      {"ppt/_rels/presentation.xml.rels", relationships({{"rId1", "slideMaster", "slideMasters/slideMaster1.xml"},
                                                         {"rId2", "slide", "slides/slide3.xml"},
                                                         {"rId3", "slide", "slides/slide2.xml"},
                                                         {"rId7", "slide", "slides/slide1.xml"}})},
      {"ppt/slides/slide1.xml", slide(shape("ctrTitle", {{"Launch ", "Plan"}}) + shape("subTitle", {{"Spring 2024"}}))},
      {"ppt/slides/_rels/slide1.xml.rels",
       relationships({{"rId1", "slideLayout", "../slideLayouts/slideLayout1.xml"}})},
      {"ppt/slides/slide2.xml",
       slide(
           shape("title", {{"Budget"}}) +
           R"(<p:grpSp><p:nvGrpSpPr><p:cNvPr id="5" name="Group"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>)" +
           shape("", {{"Grouped ", "words"}, {"Second line"}}) + "</p:grpSp>" + kTable + kSlideNumber)},
      {"ppt/slides/_rels/slide2.xml.rels", relationships({{"rId1", "slideLayout", "../slideLayouts/slideLayout2.xml"},
                                                          {"rId2", "notesSlide", "../notesSlides/notesSlide1.xml"}})},
      {"ppt/slides/slide3.xml", slide(shape("title", {{"Thanks"}}))},
      {"ppt/notesSlides/notesSlide1.xml", notes},
      {"ppt/slideLayouts/slideLayout1.xml", slide(shape("title", {{"Click to edit Master title style"}}), "sldLayout")},
  };
}

TEST(Pptx, SlidesNotesAndSections) {
  const zip_fixture::Result result = zip_fixture::extract(kPptxFormat, zip_fixture::zip(pptx_members()), "c.pptx");
  const ExtractedDocument& doc = result.document();
  EXPECT_EQ(doc.text,
            "Launch Plan\nSpring 2024\n\n"
            "Budget\nGrouped words\nSecond line\nQ1\tQ2\n10 units\t20\n\nNotes:\nMention the budget\nThen questions\n\n"
            "Thanks");
  EXPECT_EQ(zip_fixture::labels(doc), (std::vector<std::string>{"slide 1", "slide 2", "slide 3"}));
  EXPECT_EQ(section_text(doc, "slide 1"), "Launch Plan\nSpring 2024\n\n");
  EXPECT_EQ(section_text(doc, "slide 2").rfind("Budget\n", 0), 0U);
  EXPECT_EQ(section_text(doc, "slide 3"), "Thanks");
  EXPECT_EQ(metadata(doc, "slides"), "3");
  EXPECT_EQ(metadata(doc, "modified_by"), "Charles Babbage");
  // Without a title in core.xml, the first slide's title placeholder.
  EXPECT_EQ(doc.title, "Launch Plan");
  EXPECT_TRUE(result.errors.empty());
  EXPECT_EQ(zip_fixture::extract(kPptxFormat, zip_fixture::zip(pptx_members("Deck")), "c.pptx").document().title,
            "Deck");
}

TEST(Pptx, MissingAndBrokenSlides) {
  std::vector<Member> members = pptx_members();
  members.erase(members.begin() + 9);                                    // slide3.xml
  members[5].data = slide(shape("title", {{"Broken"}})).substr(0, 300);  // slide1.xml cut short
  const zip_fixture::Result result = zip_fixture::extract(kPptxFormat, zip_fixture::zip(members), "c.pptx");
  EXPECT_EQ(result.document().text.rfind("Budget\n", 0), 0U);
  EXPECT_EQ(section_text(result.document(), "slide 2").rfind("Budget\n", 0), 0U);
  ASSERT_EQ(result.errors.size(), 2U);
  EXPECT_EQ(result.errors[0].rfind("/x/c.pptx: ppt/slides/slide1.xml: malformed XML: ", 0), 0U) << result.errors[0];
  EXPECT_EQ(result.errors[1], "/x/c.pptx: slide 3: its part ppt/slides/slide3.xml is missing");

  members = pptx_members();
  members.erase(members.begin() + 3);
  EXPECT_EQ(zip_fixture::error_of(kPptxFormat, zip_fixture::zip(members), "c.pptx", ErrorCode::kParse),
            "not a PPTX file: ppt/presentation.xml is missing");
}

// --- signatures ----------------------------------------------------------------------------

std::string head(const std::string& bytes) {
  return bytes.substr(0, kSniffBytes);
}

TEST(OfficeSniff, PackagesTellApart) {
  const std::string word = head(docx(word_document(paragraph("x"))));
  const std::string excel = head(zip_fixture::zip(xlsx_members(kBudgetSheet, kNotesSheet)));
  const std::string powerpoint = head(zip_fixture::zip(pptx_members()));
  EXPECT_TRUE(kDocxFormat.sniff(word));
  EXPECT_FALSE(kXlsxFormat.sniff(word));
  EXPECT_FALSE(kPptxFormat.sniff(word));
  EXPECT_TRUE(kXlsxFormat.sniff(excel));
  EXPECT_FALSE(kDocxFormat.sniff(excel));
  EXPECT_TRUE(kPptxFormat.sniff(powerpoint));
  EXPECT_FALSE(kXlsxFormat.sniff(powerpoint));
  // LibreOffice writes _rels/.rels first and [Content_Types].xml last.
  EXPECT_TRUE(kDocxFormat.sniff(head(zip_fixture::zip({{"_rels/.rels", "<Relationships/>"},
                                                       {"word/document.xml", word_document("")},
                                                       {"[Content_Types].xml", content_types("")}}))));
  // openpyxl writes docProps/ first and the package's own members last, past the first 8 KiB of a large file.
  std::string noise(20000, ' ');
  unsigned state = 1;
  for (char& c : noise) c = static_cast<char>('!' + (state = state * 1103515245U + 12345U) % 90);
  const std::string openpyxl = head(zip_fixture::zip({{"docProps/app.xml", "<Properties/>"},
                                                      {"docProps/core.xml", core_properties("")},
                                                      {"xl/theme/theme1.xml", noise},
                                                      {"xl/worksheets/sheet1.xml", noise},
                                                      {"_rels/.rels", "<Relationships/>"},
                                                      {"[Content_Types].xml", content_types("")}}));
  EXPECT_EQ(openpyxl.find("[Content_Types].xml"), std::string::npos);
  EXPECT_TRUE(kXlsxFormat.sniff(openpyxl));
  // A plain ZIP file with a folder named xl/ (or word/) is not a workbook.
  EXPECT_FALSE(kXlsxFormat.sniff(head(zip_fixture::zip({{"xl/readme.txt", "hello"}, {"xl/data.csv", "a,b"}}))));
  EXPECT_FALSE(kDocxFormat.sniff(head(zip_fixture::zip({{"notes/a.txt", "x"}, {"word/list.txt", "y"}}))));
  EXPECT_FALSE(kDocxFormat.sniff("PK\x03\x04"));
  EXPECT_FALSE(kDocxFormat.sniff("[Content_Types].xml word/document.xml"));
}

TEST(OfficeSniff, Descriptions) {
  EXPECT_EQ(kDocxFormat.name, "docx");
  EXPECT_EQ(kDocxFormat.label, "Word document (DOCX)");
  EXPECT_EQ(kDocxFormat.extensions, (std::vector<std::string_view>{".docx", ".docm"}));
  EXPECT_EQ(kXlsxFormat.name, "xlsx");
  EXPECT_EQ(kXlsxFormat.extensions, (std::vector<std::string_view>{".xlsx", ".xlsm"}));
  EXPECT_EQ(kPptxFormat.name, "pptx");
  EXPECT_EQ(kPptxFormat.extensions, (std::vector<std::string_view>{".pptx", ".pptm"}));
  for (const FileFormat* format : {&kDocxFormat, &kXlsxFormat, &kPptxFormat}) {
    EXPECT_TRUE(format->binary);
    EXPECT_FALSE(format->text_input);
  }
}

}  // namespace office_test
}  // namespace
}  // namespace sieve::search
