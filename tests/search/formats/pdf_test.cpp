// The PDF reader (src/search/formats/pdf.cpp) on PDFs written here by hand: pages and their sections, reading
// order, the information dictionary, text outside ASCII, damaged and encrypted files.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <array>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/text_util.hpp"
#include "sieve/error.hpp"

namespace sieve::search {

namespace {
namespace pdf_test {

// --- a minimal PDF writer ------------------------------------------------------------------------------------

std::string md5(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  EXPECT_EQ(EVP_Digest(data.data(), data.size(), digest.data(), &size, EVP_md5(), nullptr), 1);
  return std::string(reinterpret_cast<const char*>(digest.data()), size);
}

// RC4, which OpenSSL 3 keeps only in its legacy provider; PDF's 40-bit standard security handler needs it.
std::string rc4(std::string_view key, std::string_view data) {
  std::array<unsigned char, 256> s{};
  for (int i = 0; i < 256; ++i) s[static_cast<std::size_t>(i)] = static_cast<unsigned char>(i);
  for (std::size_t i = 0, j = 0; i < 256; ++i) {
    j = (j + s[i] + static_cast<unsigned char>(key[i % key.size()])) % 256;
    std::swap(s[i], s[j]);
  }
  std::string out(data);
  for (std::size_t n = 0, i = 0, j = 0; n < out.size(); ++n) {
    i = (i + 1) % 256;
    j = (j + s[i]) % 256;
    std::swap(s[i], s[j]);
    out[n] = static_cast<char>(static_cast<unsigned char>(out[n]) ^ s[(s[i] + s[j]) % 256]);
  }
  return out;
}

std::string hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out = "<";
  for (const char c : bytes) {
    out += kDigits[static_cast<unsigned char>(c) >> 4];
    out += kDigits[static_cast<unsigned char>(c) & 0xF];
  }
  return out + ">";
}

// Writes objects with a correct cross-reference table, optionally encrypted with the standard security handler,
// revision 2 (RC4, 40-bit keys: PDF 1.1's, the simplest that poppler still honours).
class PdfWriter {
 public:
  int reserve() {
    objects_.emplace_back();
    return static_cast<int>(objects_.size());
  }
  void set(int number, std::string body) { objects_[static_cast<std::size_t>(number - 1)] = std::move(body); }
  void set_stream(int number, std::string_view data) {
    const std::string stored = encrypted(number, data);
    set(number, "<< /Length " + std::to_string(stored.size()) + " >>\nstream\n" + stored + "\nendstream");
  }
  // A text string (PDF's "text string" type: PDFDocEncoding, or UTF-16BE after a byte order mark), in hex.
  std::string text(int number, std::string_view bytes) { return hex(encrypted(number, bytes)); }

  void encrypt(std::string_view user_password, std::string_view owner_password) {
    static constexpr std::string_view kPadding(
        "\x28\xBF\x4E\x5E\x4E\x75\x8A\x41\x64\x00\x4E\x56\xFF\xFA\x01\x08"
        "\x2E\x2E\x00\xB6\xD0\x68\x3E\x80\x2F\x0C\xA9\xFE\x64\x53\x69\x7A",
        32);
    const auto pad = [](std::string_view password) {
      return (std::string(password) + std::string(kPadding)).substr(0, 32);
    };
    id_ = md5("sieve test document");
    const std::string owner = rc4(md5(pad(owner_password)).substr(0, 5), pad(user_password));
    const std::string permissions("\xD4\xFF\xFF\xFF", 4);  // -44, little-endian: everything allowed
    key_ = md5(pad(user_password) + owner + permissions + id_).substr(0, 5);
    const std::string user = rc4(*key_, kPadding);
    encrypt_dict_ = "<< /Filter /Standard /V 1 /R 2 /O " + hex(owner) + " /U " + hex(user) + " /P -44 >>";
  }

  std::string finish(int root, int info) {
    std::optional<int> encrypt_object;
    if (key_) {
      encrypt_object = reserve();
      set(*encrypt_object, encrypt_dict_);
    }
    std::string out = "%PDF-1.4\n%\xE2\xE3\xCF\xD3\n";
    std::vector<std::size_t> offsets;
    for (std::size_t i = 0; i < objects_.size(); ++i) {
      offsets.push_back(out.size());
      out += std::to_string(i + 1) + " 0 obj\n" + objects_[i] + "\nendobj\n";
    }
    const std::size_t xref = out.size();
    out += "xref\n0 " + std::to_string(objects_.size() + 1) + "\n0000000000 65535 f \n";
    for (const std::size_t offset : offsets) {
      char entry[32];
      std::snprintf(entry, sizeof entry, "%010zu 00000 n \n", offset);
      out += entry;
    }
    out += "trailer\n<< /Size " + std::to_string(objects_.size() + 1) + " /Root " + std::to_string(root) + " 0 R";
    if (info > 0) out += " /Info " + std::to_string(info) + " 0 R";
    if (encrypt_object)
      out += " /Encrypt " + std::to_string(*encrypt_object) + " 0 R /ID [" + hex(id_) + hex(id_) + "]";
    out += " >>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
    return out;
  }

 private:
  std::string encrypted(int number, std::string_view data) const {
    if (!key_) return std::string(data);
    std::string salt = *key_;
    salt += static_cast<char>(number & 0xFF);
    salt += static_cast<char>((number >> 8) & 0xFF);
    salt += static_cast<char>((number >> 16) & 0xFF);
    salt += std::string("\0\0", 2);  // generation 0
    return rc4(md5(salt).substr(0, 10), data);
  }

  std::vector<std::string> objects_;
  std::optional<std::string> key_;
  std::string id_;
  std::string encrypt_dict_;
};

struct PdfSpec {
  std::vector<std::string> pages = {};           // content streams, one per page
  std::map<std::string, std::string> info = {};  // information dictionary: name (without "/") to text string bytes
  std::optional<std::pair<std::string, std::string>> passwords = {};  // user, owner: encrypted when set
};

// A document of US Letter pages that draw with Helvetica (/F1, WinAnsiEncoding).
std::string make_pdf(const PdfSpec& spec) {
  PdfWriter w;
  if (spec.passwords) w.encrypt(spec.passwords->first, spec.passwords->second);
  const int catalog = w.reserve();
  const int pages = w.reserve();
  const int font = w.reserve();
  std::string kids;
  for (const std::string& content : spec.pages) {
    const int page = w.reserve();
    const int stream = w.reserve();
    w.set(page, "<< /Type /Page /Parent " + std::to_string(pages) +
                    " 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 " + std::to_string(font) +
                    " 0 R >> >> /Contents " + std::to_string(stream) + " 0 R >>");
    w.set_stream(stream, content);
    kids += std::to_string(page) + " 0 R ";
  }
  w.set(catalog, "<< /Type /Catalog /Pages " + std::to_string(pages) + " 0 R >>");
  w.set(pages, "<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(spec.pages.size()) + " >>");
  w.set(font, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  int info = 0;
  if (!spec.info.empty()) {
    info = w.reserve();
    std::string dict = "<<";
    for (const auto& [name, value] : spec.info) dict += " /" + name + " " + w.text(info, value);
    w.set(info, dict + " >>");
  }
  return w.finish(catalog, info);
}

// One line of text at (x, y), in points from the bottom left. `text` is a PDF literal string's content.
std::string draw(int x, int y, std::string_view text) {
  return "BT /F1 12 Tf " + std::to_string(x) + " " + std::to_string(y) + " Td (" + std::string(text) + ") Tj ET\n";
}

// --- reading -------------------------------------------------------------------------------------------------

struct Read {
  std::vector<ExtractedDocument> documents;
  std::vector<std::string> warnings;
  std::vector<std::string> errors;
};

// Reads bytes as formats.cpp would once it lists the PDF format: the reader, then each document's last checks.
Read read_pdf(std::string_view bytes, const std::string& key = "/x/a.pdf") {
  ExtractContext context(ExtractLimits{}, bytes.size());
  Read read;
  kPdfFormat.extract({bytes, "a.pdf", key}, context, read.documents);
  for (auto& doc : read.documents) text::finish_document(doc, doc.key);
  read.warnings = context.warnings();
  read.errors = context.errors();
  return read;
}

ExtractedDocument read_one(std::string_view bytes) {
  Read read = read_pdf(bytes);
  EXPECT_EQ(read.documents.size(), 1U);
  EXPECT_TRUE(read.errors.empty()) << read.errors.front();
  return read.documents.empty() ? ExtractedDocument{} : std::move(read.documents.front());
}

// The error reading bytes throws, checked for its code.
std::string error_of(std::string_view bytes, ErrorCode code) {
  try {
    read_pdf(bytes);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

std::string metadata(const ExtractedDocument& doc, std::string_view name) {
  for (const auto& [key, value] : doc.metadata) {
    if (key == name) return value;
  }
  return "(none)";
}

std::vector<std::pair<std::size_t, std::string>> sections(const ExtractedDocument& doc) {
  std::vector<std::pair<std::size_t, std::string>> out;
  for (const Section& s : doc.sections) out.emplace_back(s.begin, s.label);
  return out;
}

// --- tests ---------------------------------------------------------------------------------------------------

TEST(PdfFormat, SignatureWithinTheFirst1024Bytes) {
  EXPECT_TRUE(kPdfFormat.sniff("%PDF-1.7\n"));
  // Some generators (and mail gateways) put bytes before the header; readers look for it in the first 1024.
  EXPECT_TRUE(kPdfFormat.sniff(std::string(1000, 'x') + "%PDF-1.4"));
  EXPECT_FALSE(kPdfFormat.sniff(std::string(1020, 'x') + "%PDF-1.4"));
  EXPECT_FALSE(kPdfFormat.sniff("%!PS-Adobe-3.0\n"));
  EXPECT_EQ(kPdfFormat.name, "pdf");
  EXPECT_TRUE(kPdfFormat.binary);
  EXPECT_FALSE(kPdfFormat.text_input);
}

TEST(PdfFormat, PagesAreSectionsSeparatedByABlankLine) {
  const std::string pdf = make_pdf({.pages = {draw(72, 700, "First page") + draw(72, 680, "second line"),
                                              draw(72, 700, "Page two"), draw(72, 700, "Page three")}});
  const ExtractedDocument doc = read_one(pdf);
  EXPECT_EQ(doc.key, "/x/a.pdf");
  EXPECT_EQ(doc.text, "First page\nsecond line\n\nPage two\n\nPage three");
  EXPECT_EQ(sections(doc),
            (std::vector<std::pair<std::size_t, std::string>>{{0, "page 1"}, {24, "page 2"}, {34, "page 3"}}));
  EXPECT_EQ(doc.text.substr(doc.sections[1].begin, 8), "Page two");
  EXPECT_EQ(metadata(doc, "pages"), "3");
  EXPECT_EQ(doc.title, "");  // no information dictionary
}

TEST(PdfFormat, AnEmptyPageKeepsItsSection) {
  // Page 2 draws nothing, page 4 neither (the last): each keeps a section of no bytes where the next text starts,
  // and the text holds no extra blank lines.
  const std::string pdf = make_pdf({.pages = {draw(72, 700, "one"), "", draw(72, 700, "three"), ""}});
  const ExtractedDocument doc = read_one(pdf);
  EXPECT_EQ(doc.text, "one\n\nthree");
  EXPECT_EQ(sections(doc), (std::vector<std::pair<std::size_t, std::string>>{
                               {0, "page 1"}, {5, "page 2"}, {5, "page 3"}, {10, "page 4"}}));
  EXPECT_EQ(metadata(doc, "pages"), "4");
}

TEST(PdfFormat, TextComesInReadingOrderNotDrawingOrder) {
  // "world" is drawn first but stands right of "Hello" on the same line; the lines are drawn out of order too.
  // (poppler's raw_order_layout would give "world\nHello\nbelow\nmiddle".)
  const std::string pdf = make_pdf(
      {.pages = {draw(104, 700, "world") + draw(72, 700, "Hello") + draw(72, 660, "below") + draw(72, 680, "middle")}});
  EXPECT_EQ(read_one(pdf).text, "Hello world\nmiddle\nbelow");
}

TEST(PdfFormat, ColumnsAreReadOneAfterTheOther) {
  // Two columns of three lines each, far apart: pdftotext's reading order gives the left column, then the right
  // (a physical layout would interleave them line by line).
  std::string content;
  for (int line = 0; line < 3; ++line) {
    const int y = 700 - 14 * line;
    content += draw(330, y, "right" + std::to_string(line + 1) + " text text text text text");
    content += draw(72, y, "left" + std::to_string(line + 1) + " text text text text text");
  }
  const std::string text = read_one(make_pdf({.pages = {content}})).text;
  EXPECT_EQ(text,
            "left1 text text text text text\nleft2 text text text text text\nleft3 text text text text text\n\n"
            "right1 text text text text text\nright2 text text text text text\nright3 text text text text text");
}

TEST(PdfFormat, InformationDictionary) {
  const std::string pdf = make_pdf({.pages = {draw(72, 700, "body")},
                                    .info = {{"Title", "  Annual   report "},
                                             {"Author", "Ada Lovelace"},
                                             {"Subject", "Engines"},
                                             {"Keywords", "analytical, engine"},
                                             {"Producer", "hand"},
                                             {"Creator", "not kept"},
                                             {"CreationDate", "D:20240501100000Z"},
                                             // 12:00 at UTC+2 is 10:00 UTC.
                                             {"ModDate", "D:20240601120000+02'00'"}}});
  const ExtractedDocument doc = read_one(pdf);
  EXPECT_EQ(doc.title, "Annual report");
  EXPECT_EQ(doc.metadata, (std::vector<std::pair<std::string, std::string>>{{"author", "Ada Lovelace"},
                                                                            {"created", "2024-05-01T10:00:00Z"},
                                                                            {"keywords", "analytical, engine"},
                                                                            {"modified", "2024-06-01T10:00:00Z"},
                                                                            {"pages", "1"},
                                                                            {"producer", "hand"},
                                                                            {"subject", "Engines"}}));
}

TEST(PdfFormat, TextOutsideAscii) {
  // A UTF-16BE title with a character outside the BMP (a surrogate pair), and page text in WinAnsiEncoding.
  const std::string title("\xFE\xFF\x00\x43\x00\x61\x00\x66\x00\xE9\x00\x20\xD8\x3D\xDE\x00", 16);  // "Café 😀"
  const std::string pdf =
      make_pdf({.pages = {draw(72, 700, "caf\\351 \\200 5")}, .info = {{"Title", title}, {"Author", "Jos\xE9"}}});
  const ExtractedDocument doc = read_one(pdf);
  EXPECT_EQ(doc.title, "Caf\u00E9 \U0001F600");
  EXPECT_EQ(metadata(doc, "author"), "Jos\u00E9");  // PDFDocEncoding
  EXPECT_EQ(doc.text, "caf\u00E9 \u20AC 5");
}

TEST(PdfFormat, NotAPdf) {
  EXPECT_EQ(error_of("just some text in a file named .pdf\n", ErrorCode::kParse),
            "not a PDF file (no %PDF- signature)");
  EXPECT_EQ(error_of("", ErrorCode::kParse), "not a PDF file (no %PDF- signature)");
}

TEST(PdfFormat, DamagedBeyondRepairIsAnError) {
  std::string garbage = "%PDF-1.4\n";
  for (int i = 0; i < 200; ++i) garbage += "\x01\xFF garbage ) ] >> endobj ";
  EXPECT_EQ(error_of(garbage, ErrorCode::kParse), "damaged PDF: cannot be opened");
  EXPECT_EQ(error_of("%PDF-1.4\n", ErrorCode::kParse), "damaged PDF: cannot be opened");
  // Cut short before its trailer (an interrupted download): poppler finds the objects but not which is the
  // document's catalog, and gives up.
  const std::string pdf = make_pdf({.pages = {draw(72, 700, "first"), draw(72, 700, "second")}});
  EXPECT_EQ(error_of(pdf.substr(0, pdf.size() / 2), ErrorCode::kParse), "damaged PDF: cannot be opened");
  // A page tree whose /Count is larger than the file's objects: poppler finds no pages at all.
  std::string no_pages = pdf;
  no_pages.replace(no_pages.find("/Count 2"), 8, "/Count 9999999");
  EXPECT_EQ(error_of(no_pages, ErrorCode::kParse), "damaged PDF: no pages found (its page tree is broken)");
}

TEST(PdfFormat, DamagedButRepairableIsReadAsFarAsPossible) {
  const std::string pdf = make_pdf({.pages = {draw(72, 700, "first"), draw(72, 700, "second")}});
  // Without its cross-reference table poppler rebuilds it by scanning for objects (the trailer names the root).
  const std::string no_xref = pdf.substr(0, pdf.find("xref")) + pdf.substr(pdf.find("trailer"));
  EXPECT_EQ(read_one(no_xref).text, "first\n\nsecond");
  // Every cross-reference offset wrong: repaired as well.
  std::string shifted = pdf;
  shifted.insert(shifted.find("1 0 obj"), "% a comment that moves every object\n");
  EXPECT_EQ(read_one(shifted).text, "first\n\nsecond");
  // startxref pointing nowhere.
  std::string lost = pdf;
  lost.replace(lost.find("startxref\n") + 10, 3, "999");
  EXPECT_EQ(read_one(lost).text, "first\n\nsecond");
  // A page whose content is not a stream draws nothing; the others are read.
  std::string broken_page = pdf;
  broken_page.replace(broken_page.rfind("stream\nBT"), 6, "strXam");
  EXPECT_EQ(read_one(broken_page).text, "first");
}

TEST(PdfFormat, EncryptedWithAPasswordIsNotRead) {
  const std::string pdf = make_pdf({.pages = {draw(72, 700, "secret text")},
                                    .info = {{"Title", "Secret"}},
                                    .passwords = std::make_pair("user password", "owner password")});
  EXPECT_EQ(error_of(pdf, ErrorCode::kUnsupported), "encrypted PDF (a password is needed): not read");
}

TEST(PdfFormat, EncryptedWithAnEmptyUserPasswordIsRead) {
  // Only the owner password is set (printing or copying restricted): it opens for anyone, and is read silently.
  const std::string pdf = make_pdf({.pages = {draw(72, 700, "restricted text")},
                                    .info = {{"Title", "Restricted"}},
                                    .passwords = std::make_pair("", "owner password")});
  const Read read = read_pdf(pdf);
  ASSERT_EQ(read.documents.size(), 1U);
  EXPECT_EQ(read.documents[0].text, "restricted text");
  EXPECT_EQ(read.documents[0].title, "Restricted");
  EXPECT_TRUE(read.warnings.empty());
  EXPECT_TRUE(read.errors.empty());
}

TEST(PdfFormat, APdfWithoutTextWarns) {
  // Pages that only paint (as a scan does) give no text; the user hears why the file yields nothing.
  const Read read = read_pdf(make_pdf({.pages = {"0 0 1 rg 72 72 200 200 re f\n", ""}}));
  ASSERT_EQ(read.documents.size(), 1U);
  EXPECT_EQ(read.documents[0].text, "");
  EXPECT_EQ(read.documents[0].sections.size(), 2U);
  ASSERT_EQ(read.warnings.size(), 1U);
  EXPECT_EQ(read.warnings[0], "/x/a.pdf: no text found in the PDF (scanned pages or images of text are not read)");
}

TEST(PdfFormat, PagesThatCannotBeReadAreReportedAndTheRestRead) {
  // The page tree claims 5 pages and holds 2: the 3 missing are one error, and keep their sections.
  std::string pdf = make_pdf({.pages = {draw(72, 700, "first"), draw(72, 700, "second")}});
  pdf.replace(pdf.find("/Count 2"), 8, "/Count 5");
  const Read read = read_pdf(pdf);
  ASSERT_EQ(read.documents.size(), 1U);
  EXPECT_EQ(read.documents[0].text, "first\n\nsecond");
  EXPECT_EQ(read.documents[0].sections.size(), 5U);
  EXPECT_EQ(metadata(read.documents[0], "pages"), "5");
  EXPECT_EQ(read.errors, std::vector<std::string>{"/x/a.pdf: damaged PDF: pages 3, 4, 5 of 5 could not be read"});
}

TEST(PdfFormat, TooManyPagesAreRefused) {
  // poppler believes a page count up to the number of objects in the file, so a file that claims 150,000 pages
  // needs as many objects: 150,001 "null" objects (4 MB) and one real page.
  PdfWriter w;
  const int catalog = w.reserve();
  const int pages = w.reserve();
  const int page = w.reserve();
  w.set(catalog, "<< /Type /Catalog /Pages 2 0 R >>");
  w.set(pages, "<< /Type /Pages /Kids [3 0 R] /Count 150000 >>");
  w.set(page, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>");
  for (int i = 0; i < 150000; ++i) w.set(w.reserve(), "null");
  EXPECT_EQ(error_of(w.finish(catalog, 0), ErrorCode::kParse),
            "damaged PDF: claims 150000 pages (more than 100000 are not read)");
}

}  // namespace pdf_test
}  // namespace
}  // namespace sieve::search
