// Fuzzes reading files into documents (src/search/formats/): any bytes,
// under a name that selects a format by its ending, through the same call
// `sieve index add` makes for each file. What must hold for any input: no
// crash, leak or sanitizer report; a failure is a sieve::Error with a
// message; every document's text is valid UTF-8, its sections and chunk
// breaks ascend and lie within it; expansion stays within the limits.
//
// Input: the last byte picks the file name (and so the format a name
// selects; content signatures still win, as in a real run); the rest is the
// file. Seeds: tests/fuzz/make_document_seeds.py writes one small valid file
// per format (scripts/fuzz.sh runs it).

#include <fuzzer/FuzzedDataProvider.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "search/extract.hpp"
#include "tokenizer/core/unicode.hpp"

namespace {

// PDF is left out: its reader is poppler's, which its own project fuzzes;
// what Sieve adds around it is covered by the unit tests.
constexpr std::array<std::string_view, 24> kNames = {
    "notes.txt", "README",    "page.html",   "guide.md",   "records.jsonl", "ls.1",        "intro.rst",  "book.adoc",
    "main.py",   "lib.rs",    "config.yaml", "letter.eml", "inbox.mbox",    "report.docx", "data.xlsx",  "slides.pptx",
    "text.odt",  "sheet.ods", "talk.odp",    "novel.epub", "bundle.zip",    "backup.tar",  "log.txt.gz", "changes.bz2"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using sieve::fuzz::check;
  FuzzedDataProvider in(data, size);
  const std::string name(kNames[in.ConsumeIntegralInRange<std::size_t>(0, kNames.size() - 1)]);
  const std::string bytes = in.ConsumeRemainingBytesAsString();
  sieve::search::ExtractLimits limits;
  limits.max_expanded_bytes = std::uint64_t{8} << 20;
  limits.max_members = 64;
  limits.max_cells = 10000;
  sieve::search::Extraction extraction;
  (void)sieve::fuzz::accepts([&] { extraction = sieve::search::extract_file(bytes, name, "fuzz/" + name, limits); });
  std::size_t expanded = 0;
  for (const auto& document : extraction.documents) {
    const std::string& text = document.text;
    expanded += text.size();
    check(sieve::tokenizer::unicode::find_invalid_utf8(text) == std::string_view::npos, "document text is not UTF-8",
          document.key);
    check(sieve::tokenizer::unicode::find_invalid_utf8(document.title) == std::string_view::npos, "title is not UTF-8",
          document.key);
    for (std::size_t i = 0; i < document.sections.size(); ++i) {
      check(document.sections[i].begin <= text.size(), "section beyond the text", document.key);
      check(i == 0 || document.sections[i - 1].begin <= document.sections[i].begin, "sections out of order");
    }
    for (std::size_t i = 0; i < document.breaks.size(); ++i) {
      check(document.breaks[i] < text.size(), "break beyond the text", document.key);
      check(i == 0 || document.breaks[i - 1] < document.breaks[i], "breaks out of order");
    }
    for (std::size_t i = 1; i < document.metadata.size(); ++i) {
      check(document.metadata[i - 1].first < document.metadata[i].first, "metadata keys not sorted and unique");
    }
  }
  // Text is at most what the limits let a file expand to, decoded (a Windows-1252 byte is up to three bytes of
  // UTF-8; a reader adds a line break per part).
  check(expanded <= 3 * (limits.max_expanded_bytes + bytes.size()) + 4096, "text beyond the expansion limit");
  return 0;
}
