// Excel workbooks (.xlsx, .xlsm): each sheet in the workbook's order, its name on a line and then its rows, one
// line each, cells separated by tabs. Values are read as stored (a date is its serial number, a formula its
// last result); the shared strings and the sheets are streamed, since a sheet of millions of cells would take
// gigabytes as a tree.
#include <libxml/xmlreader.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <memory>

#include "search/formats/archive_reader.hpp"
#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/ooxml.hpp"
#include "search/formats/text_util.hpp"
#include "search/formats/xml_util.hpp"
#include "sieve/error.hpp"

namespace sieve::search {
namespace {
namespace xlsx_reader {

using text::TextBuilder;

// More cells than this in one file are left out, with a warning: the text is for search, and a sheet of
// generated data beyond this says little more. So is text past the file's expansion limit: a cell of a few
// bytes can show a shared string of megabytes, as often as it likes.
constexpr std::size_t kColumns = 16384;  // Excel's widest sheet (A to XFD)

// Reads a part's XML node by node (libxml2's xmlTextReader), with the protections of xml::parse: no network,
// no entities, malformed XML an error naming the part.
class XmlStream {
 public:
  XmlStream(std::string_view bytes, const std::string& where) : where_(where) {
    xml::prepare();
    if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      throw Error(ErrorCode::kInvalidInput, where + ": XML too large (" + std::to_string(bytes.size()) + " bytes)");
    }
    if (bytes.find("<!ENTITY") != std::string_view::npos) {
      throw Error(ErrorCode::kUnsupported, where + ": XML that declares entities (<!ENTITY) is not read");
    }
    constexpr int kOptions = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_HUGE;
    reader_.reset(xmlReaderForMemory(bytes.data(), static_cast<int>(bytes.size()), nullptr, nullptr, kOptions));
    if (!reader_) throw Error(ErrorCode::kRuntime, where + ": cannot start the XML reader");
    // The reader's errors are found as xml::parse finds the parser's: libxml2's last error on this thread.
    xmlResetLastError();
  }

  // Moves to the next node; false at the end of the document.
  bool next() {
    const int status = xmlTextReaderRead(reader_.get());
    if (status >= 0) return status == 1;
    const xmlError* error = xmlGetLastError();
    std::string what = error != nullptr && error->message != nullptr ? error->message : "not well-formed";
    while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
    const std::string line = error != nullptr && error->line > 0 ? " (line " + std::to_string(error->line) + ")" : "";
    throw Error(ErrorCode::kParse, where_ + ": malformed XML: " + what + line);
  }

  [[nodiscard]] bool is_start(std::string_view local_name) const {
    return xmlTextReaderNodeType(reader_.get()) == XML_READER_TYPE_ELEMENT && name() == local_name;
  }
  [[nodiscard]] bool is_end(std::string_view local_name) const {
    return xmlTextReaderNodeType(reader_.get()) == XML_READER_TYPE_END_ELEMENT && name() == local_name;
  }
  // <c/>: a start with no end to follow.
  [[nodiscard]] bool is_empty_element() const { return xmlTextReaderIsEmptyElement(reader_.get()) == 1; }
  [[nodiscard]] bool is_text() const {
    const int type = xmlTextReaderNodeType(reader_.get());
    return type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_CDATA ||
           type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE || type == XML_READER_TYPE_WHITESPACE;
  }
  [[nodiscard]] std::string_view value() const { return xml::chars(xmlTextReaderConstValue(reader_.get())); }
  [[nodiscard]] std::string attribute(const char* qualified_name) const {
    const xml::CharPtr value(
        xmlTextReaderGetAttribute(reader_.get(), reinterpret_cast<const xmlChar*>(qualified_name)));
    return std::string(xml::chars(value.get()));
  }

 private:
  [[nodiscard]] std::string_view name() const { return xml::chars(xmlTextReaderConstLocalName(reader_.get())); }

  struct ReaderDeleter {
    void operator()(xmlTextReader* reader) const { xmlFreeTextReader(reader); }
  };
  std::unique_ptr<xmlTextReader, ReaderDeleter> reader_;
  std::string where_;
};

// The workbook's shared strings in order: all the text of each <si>, its rich-text runs included; the phonetic
// readings of Japanese text (<rPh>) are not, as they repeat it.
// The text of a rich-text string (<t> runs, phonetic <rPh> hints left out), in a shared string or an inline
// cell: take() consumes the events that are its own and appends its text to `out` while `inside` it.
struct RichText {
  bool in_text = false;
  int in_phonetic = 0;
  void take(const XmlStream& stream, bool inside, std::string& out) {
    if (stream.is_start("t")) {
      in_text = inside && !stream.is_empty_element();
    } else if (stream.is_end("t")) {
      in_text = false;
    } else if (stream.is_start("rPh")) {
      if (!stream.is_empty_element()) ++in_phonetic;
    } else if (stream.is_end("rPh")) {
      --in_phonetic;
    } else if (in_text && in_phonetic == 0 && stream.is_text()) {
      out.append(stream.value());
    }
  }
};

std::vector<std::string> shared_strings(std::string_view bytes, const std::string& where) {
  std::vector<std::string> strings;
  XmlStream stream(bytes, where);
  std::string current;
  bool in_item = false;
  RichText rich;
  while (stream.next()) {
    if (stream.is_start("si")) {
      current.clear();
      in_item = !stream.is_empty_element();
      if (!in_item) strings.emplace_back();
    } else if (stream.is_end("si")) {
      strings.push_back(std::move(current));
      current.clear();
      in_item = false;
    } else {
      rich.take(stream, in_item, current);
    }
  }
  return strings;
}

// The 0-based column of a cell reference ("C7" → 2); `fallback` when there is none.
std::size_t column_of(std::string_view reference, std::size_t fallback) {
  std::size_t column = 0;
  std::size_t letters = 0;
  for (const char c : reference) {
    if (c < 'A' || c > 'Z') break;
    column = column * 26 + static_cast<std::size_t>(c - 'A' + 1);
    if (++letters > 3) return fallback;
  }
  if (letters == 0 || column > kColumns) return fallback;
  return column - 1;
}

// One row's cells on one line, each at its column (a tab for each column passed), trailing empty cells left out.
class RowLine {
 public:
  void add(std::size_t column, std::string_view value) {
    const std::size_t tabs =
        column >= next_column_ ? column - next_column_ + (next_column_ > 0 ? 1 : 0) : (next_column_ > 0 ? 1 : 0);
    line_.append(tabs, '\t');
    line_.append(value);
    next_column_ = std::max(column, next_column_) + 1;
  }
  [[nodiscard]] std::size_t next_column() const { return next_column_; }
  [[nodiscard]] const std::string& text() const { return line_; }
  void clear() {
    line_.clear();
    next_column_ = 0;
  }

 private:
  std::string line_;
  std::size_t next_column_ = 0;
};

// What one workbook's reading keeps across its sheets.
struct Workbook {
  std::vector<std::string> strings;
  std::uint64_t max_bytes = 0;  // of cell text in all
  std::size_t max_cells = 0;
  std::size_t cells = 0;
  std::uint64_t bytes = 0;
  std::string cut;  // why the rest was left out; "" while it is not
};

// A cell's value as the sheet shows it, on one line: a shared string by index, an inline string, else <v> as
// stored (numbers, booleans as 1/0, errors, formula results).
std::string cell_value(const std::string& type, const std::string& value, const std::string& inline_text,
                       const Workbook& book) {
  if (type == "s") {
    const std::string_view number = text::trim(value);
    std::size_t index = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), index);
    if (error != std::errc() || end != number.data() + number.size() || index >= book.strings.size()) return {};
    return text::collapse_whitespace(book.strings[index]);
  }
  if (type == "inlineStr") return text::collapse_whitespace(inline_text);
  return text::collapse_whitespace(value);
}

// Appends a worksheet's rows to `out`; stops at the workbook's cell limit.
void read_sheet(std::string_view bytes, const std::string& where, Workbook& book, TextBuilder& out) {
  XmlStream stream(bytes, where);
  RowLine row;
  std::string type;
  std::string reference;
  std::string value;        // <v>
  std::string inline_text;  // <is><t>
  bool in_value = false;
  bool in_inline = false;
  RichText rich;
  const auto end_row = [&] {
    if (!row.text().empty()) {
      out.request_break(1);
      out.add_verbatim(row.text());
      out.request_break(1);
    }
    row.clear();
  };
  const auto end_cell = [&] {
    const std::string shown = cell_value(type, value, inline_text, book);
    if (shown.empty()) return;
    book.bytes += shown.size();
    if (++book.cells > book.max_cells) {
      book.cut = "more than " + std::to_string(book.max_cells) + " cells";
      return;
    }
    if (book.bytes > book.max_bytes) {
      book.cut = "more than " + std::to_string(book.max_bytes) + " bytes of text";
      return;
    }
    row.add(column_of(reference, row.next_column()), shown);
  };
  while (book.cut.empty() && stream.next()) {
    if (stream.is_start("row")) {
      row.clear();
    } else if (stream.is_end("row")) {
      end_row();
    } else if (stream.is_start("c")) {
      type = stream.attribute("t");
      reference = stream.attribute("r");
      value.clear();
      inline_text.clear();
      if (stream.is_empty_element()) end_cell();
    } else if (stream.is_end("c")) {
      end_cell();
    } else if (stream.is_start("v")) {
      in_value = !stream.is_empty_element();
    } else if (stream.is_end("v")) {
      in_value = false;
    } else if (stream.is_start("is")) {
      in_inline = !stream.is_empty_element();
    } else if (stream.is_end("is")) {
      in_inline = false;
    } else if (in_value && stream.is_text()) {
      value.append(stream.value());
    } else {
      rich.take(stream, in_inline, inline_text);
    }
  }
  // A row the limit cut short still has its first cells.
  end_row();
}

struct Sheet {
  std::string name;
  std::string path;  // "" when the workbook names no part for it
};

std::vector<Sheet> workbook_sheets(xmlNode* workbook, const ooxml::Relationships& relationships) {
  std::vector<Sheet> sheets;
  for (xmlNode* n = ooxml::child(ooxml::child(workbook, "sheets"), "sheet"); n != nullptr; n = n->next) {
    if (n->type != XML_ELEMENT_NODE || xml::name(n) != "sheet") continue;
    const auto it = relationships.find(ooxml::relationship_id(n));
    sheets.push_back({text::collapse_whitespace(xml::attribute(n, "name")),
                      it != relationships.end() ? it->second.target : std::string()});
  }
  return sheets;
}

// Reads an optional part with `read`, reporting (context.fail) a part that cannot be read.
template <typename Read>
void read_part(ExtractContext& context, const std::string& key, Read&& read) {
  try {
    read();
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kRuntime) throw;
    context.fail(key, e.what());
  }
}

void extract(const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) {
  ooxml::refuse_compound_file(input.bytes);
  const ooxml::Parts parts = archive::read_all(input.bytes, context, input.key);
  const std::string main = ooxml::main_part(parts, context, input.key, "xl/workbook.xml");
  const xml::DocPtr workbook = ooxml::parse_required(parts, main, "an XLSX file");
  const ooxml::Relationships relationships = ooxml::relationships(parts, main, context, input.key);
  const std::vector<Sheet> sheets = workbook_sheets(xmlDocGetRootElement(workbook.get()), relationships);

  ExtractedDocument doc;
  doc.key = input.key;
  ooxml::read_core_properties(parts, context, input.key, doc);
  doc.metadata.emplace_back("sheets", std::to_string(sheets.size()));

  Workbook book;
  book.max_bytes = context.limits().max_expanded_bytes;
  book.max_cells = context.limits().max_cells;
  std::string strings_path = ooxml::target_of_type(relationships, "sharedStrings");
  if (strings_path.empty()) strings_path = ooxml::folder_of(main) + "sharedStrings.xml";
  if (const std::string* bytes = ooxml::find_part(parts, strings_path)) {
    read_part(context, input.key, [&] { book.strings = shared_strings(*bytes, strings_path); });
  }

  TextBuilder builder;
  for (std::size_t i = 0; i < sheets.size(); ++i) {
    const Sheet& sheet = sheets[i];
    builder.request_break(2);
    doc.sections.push_back(
        {builder.next_offset(), "sheet " + (sheet.name.empty() ? std::to_string(i + 1) : sheet.name)});
    builder.add_verbatim(sheet.name);
    builder.request_break(1);
    const std::string* bytes = ooxml::find_part(parts, sheet.path);
    if (bytes == nullptr) {
      context.fail(input.key, "sheet \"" + sheet.name + "\": its part " +
                                  (sheet.path.empty() ? "is not named" : sheet.path + " is missing"));
      continue;
    }
    if (book.cut.empty()) read_part(context, input.key, [&] { read_sheet(*bytes, sheet.path, book, builder); });
  }
  if (!book.cut.empty()) context.warn(input.key, book.cut + ": the rest are left out");
  doc.text = builder.finish();
  for (Section& section : doc.sections) section.begin -= std::min(section.begin, builder.leading_trimmed());
  out.push_back(std::move(doc));
}

bool sniff(std::string_view head) {
  return ooxml::sniff_package(head, "xl/");
}

}  // namespace xlsx_reader
}  // namespace

const FileFormat kXlsxFormat{
    .name = "xlsx",
    .label = "Excel workbook (XLSX)",
    .extensions = {".xlsx", ".xlsm"},
    .sniff = xlsx_reader::sniff,
    .text_input = false,
    .binary = true,
    .extract = xlsx_reader::extract,
};

}  // namespace sieve::search
