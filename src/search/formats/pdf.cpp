// PDF (.pdf, and files with "%PDF-" in their first 1024 bytes): the text of each page in reading order through
// poppler's C++ interface, one section per page; the title, author and dates from the document's information
// dictionary.
#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-page.h>

#include <climits>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/text_util.hpp"
#include "sieve/error.hpp"
#include "tokenizer/core/unicode.hpp"

namespace sieve::search {
namespace {
namespace pdf_reader {

// PDF readers accept the signature anywhere in the first 1024 bytes (Acrobat's rule, also file(1)'s): some
// generators put a preamble before it.
constexpr std::size_t kSignatureWindow = 1024;

// A page tree may claim any number of pages; past this the file is taken for damaged or hostile rather than
// read page by page for hours.
constexpr int kMaxPages = 100000;

// At most this many page numbers are named when pages cannot be read; the rest are counted.
constexpr std::size_t kPagesNamed = 10;

bool sniff_pdf(std::string_view head) {
  return head.substr(0, kSignatureWindow).find("%PDF-") != std::string_view::npos;
}

// poppler writes what it finds wrong in a damaged file ("Syntax Error: ...") to stderr, where it would
// interleave with Sieve's own output and repeat for every damaged file of a run. It recovers what it can on its
// own; what it cannot shows up as pages without text or a file that does not open, which we report.
void drop_poppler_message(const std::string& /*message*/, void* /*closure*/) {}

void silence_poppler() {
  // The handler is process-wide; installing it once is enough (and thread-safe as a static's initializer).
  [[maybe_unused]] static const bool silenced = [] {
    poppler::set_debug_error_function(drop_poppler_message, nullptr);
    return true;
  }();
}

// poppler::ustring holds UTF-16 code units. Its own to_utf8() goes through iconv and stops at the first unpaired
// surrogate, losing the rest of the page; this conversion replaces such a unit with U+FFFD and goes on.
std::string utf8_of(const poppler::ustring& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    char32_t cp = s[i];
    if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < s.size() && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) {
      cp = 0x10000 + ((cp - 0xD800) << 10) + (s[i + 1] - 0xDC00);
      ++i;
    } else if (cp >= 0xD800 && cp <= 0xDFFF) {
      cp = 0xFFFD;
    }
    // A byte order mark says nothing once the text is UTF-8.
    if (cp == 0xFEFF && out.empty()) continue;
    tokenizer::unicode::append_utf8(out, cp);
  }
  return out;
}

// An information-dictionary date as ISO 8601 in UTC ("2024-05-01T10:00:00Z"); "" when it is absent or unreadable
// (poppler answers (time_t)-1).
std::string iso_utc(std::time_t t) {
  if (t == static_cast<std::time_t>(-1)) return {};
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return {};
  char buffer[32];
  const std::size_t n = std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buffer, n);
}

// A page's text as pdftotext gives it by default: words in reading order (columns one after the other, lines
// top to bottom), not laid out with spaces as on paper (physical_layout) nor in the order the content stream
// happens to draw them (raw_order_layout).
std::string page_text(const poppler::page& page) {
  std::string text = utf8_of(page.text(poppler::rectf(), poppler::page::non_raw_non_physical_layout));
  // Form feeds end pages in pdftotext's output; here the sections do.
  std::erase(text, '\f');
  return std::string(text::trim(text));
}

// "pages 3, 7, 9" or "pages 3, 7, ... (40 in all)".
std::string page_list(const std::vector<int>& pages) {
  std::string out = pages.size() == 1 ? "page " : "pages ";
  for (std::size_t i = 0; i < pages.size() && i < kPagesNamed; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(pages[i]);
  }
  if (pages.size() > kPagesNamed) out += ", ... (" + std::to_string(pages.size()) + " in all)";
  return out;
}

void add_metadata(ExtractedDocument& doc, const char* name, std::string value) {
  value = text::collapse_whitespace(value);
  if (!value.empty()) doc.metadata.emplace_back(name, std::move(value));
}

void extract_pdf(const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) {
  // detect_format hands a file named .pdf to this reader whatever it holds, so that the user hears why it was
  // not read.
  if (!sniff_pdf(input.bytes)) throw Error(ErrorCode::kParse, "not a PDF file (no %PDF- signature)");
  if (input.bytes.size() > static_cast<std::size_t>(INT_MAX)) {
    throw Error(ErrorCode::kUnsupported,
                "PDF larger than 2 GiB (" + std::to_string(input.bytes.size()) + " bytes): not read");
  }
  silence_poppler();
  // poppler reads the bytes in place (no copy); they outlive the document.
  const std::unique_ptr<poppler::document> pdf(
      poppler::document::load_from_raw_data(input.bytes.data(), static_cast<int>(input.bytes.size())));
  if (!pdf) throw Error(ErrorCode::kParse, "damaged PDF: cannot be opened");
  // A file encrypted with an empty user password (only to restrict printing or copying) opens unlocked and is
  // read like any other; one that needs a password to be read stays locked.
  if (pdf->is_locked()) throw Error(ErrorCode::kUnsupported, "encrypted PDF (a password is needed): not read");
  const int pages = pdf->pages();
  // poppler answers 0 when the page tree is unusable (its /Count larger than the file's objects, say).
  if (pages <= 0) throw Error(ErrorCode::kParse, "damaged PDF: no pages found (its page tree is broken)");
  if (pages > kMaxPages) {
    throw Error(ErrorCode::kParse, "damaged PDF: claims " + std::to_string(pages) + " pages (more than " +
                                       std::to_string(kMaxPages) + " are not read)");
  }

  ExtractedDocument doc;
  doc.key = input.key;
  doc.title = text::collapse_whitespace(utf8_of(pdf->get_title()));
  add_metadata(doc, "author", utf8_of(pdf->get_author()));
  add_metadata(doc, "subject", utf8_of(pdf->get_subject()));
  add_metadata(doc, "keywords", utf8_of(pdf->get_keywords()));
  add_metadata(doc, "producer", utf8_of(pdf->get_producer()));
  add_metadata(doc, "created", iso_utc(pdf->get_creation_date_t()));
  add_metadata(doc, "modified", iso_utc(pdf->get_modification_date_t()));
  doc.metadata.emplace_back("pages", std::to_string(pages));

  // Pages are joined by one blank line. A page without text adds no separator: its section starts where the
  // next page's text does (a section of no bytes), so the text never holds runs of blank lines.
  std::vector<int> unreadable;
  std::size_t pending = 0;  // sections of empty pages still waiting for their offset
  for (int index = 0; index < pages; ++index) {
    doc.sections.push_back({0, "page " + std::to_string(index + 1)});
    ++pending;
    const std::unique_ptr<poppler::page> page(pdf->create_page(index));
    if (!page) {
      unreadable.push_back(index + 1);
      continue;
    }
    const std::string words = page_text(*page);
    if (words.empty()) continue;
    if (!doc.text.empty()) doc.text += "\n\n";
    for (std::size_t i = doc.sections.size() - pending; i < doc.sections.size(); ++i) {
      doc.sections[i].begin = doc.text.size();
    }
    pending = 0;
    doc.text += words;
  }
  for (std::size_t i = doc.sections.size() - pending; i < doc.sections.size(); ++i) {
    doc.sections[i].begin = doc.text.size();
  }

  if (!unreadable.empty()) {
    context.fail(input.key,
                 "damaged PDF: " + page_list(unreadable) + " of " + std::to_string(pages) + " could not be read");
  }
  if (doc.text.empty() && unreadable.size() < static_cast<std::size_t>(pages)) {
    context.warn(input.key, "no text found in the PDF (scanned pages or images of text are not read)");
  }
  out.push_back(std::move(doc));
}

}  // namespace pdf_reader
}  // namespace

const FileFormat kPdfFormat{
    .name = "pdf",
    .label = "PDF",
    .extensions = {".pdf"},
    .sniff = pdf_reader::sniff_pdf,
    .text_input = false,
    .binary = true,
    .extract = pdf_reader::extract_pdf,
};

}  // namespace sieve::search
