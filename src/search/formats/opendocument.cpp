// OpenDocument text, spreadsheets and presentations (.odt, .ods, .odp: LibreOffice's own formats): the text of
// content.xml and the properties in meta.xml. A section per sheet or slide; footnotes and speaker notes after
// the text they belong to.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "search/formats/archive_reader.hpp"
#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/ooxml.hpp"
#include "search/formats/text_util.hpp"
#include "search/formats/xml_util.hpp"
#include "sieve/error.hpp"

namespace sieve::search {
namespace {
namespace odf_reader {

using text::TextBuilder;

// A row or cell that holds text and says it repeats (table:number-rows-repeated, -columns-repeated) is written
// at most this many times: spreadsheets repeat formatting, rarely text, and a repeat count can be anything.
constexpr std::size_t kMaxRepeat = 100;
// Empty cells between two with text become at most this many tabs (the widest sheet LibreOffice makes).
constexpr std::size_t kColumns = 16384;
// More cells with text than this in one file are left out, with a warning; so is text past the file's expansion
// limit, which repeats could otherwise multiply without bound.
// Spaces one <text:s text:c="N"/> may stand for: a few for layout, never more text than the element's own size.
constexpr std::size_t kMaxSpaces = 16;

// Elements whose content is not the document's text: tracked changes (deleted text among them), comments,
// alternative text of pictures (svg:title, svg:desc), the templates of generated indexes, declarations, ruby
// annotations (a reading of the text they annotate). Notes (text:note, presentation:notes) are read after the
// text they belong to.
bool skipped(xmlNode* node) {
  static const std::set<std::string_view> kSkipped = {
      "tracked-changes",  "annotation", "annotation-end", "index-title-template", "sequence-decls", "variable-decls",
      "user-field-decls", "forms",      "scripts",        "event-listeners",      "ruby-text",
  };
  const std::string_view name = xml::name(node);
  // <text:title> is a field that shows the document's title: text.
  if (name == "title" || name == "desc") {
    return node->ns != nullptr && xml::chars(node->ns->href).ends_with(":svg-compatible:1.0");
  }
  // <text:table-of-content-source>, <text:alphabetical-index-source>...: how an index is made, not its text.
  return kSkipped.contains(name) || name.ends_with("-source");
}

// Frames of a presentation page whose text is the same on every page.
bool repeated_frame(xmlNode* node) {
  const std::string kind = xml::attribute(node, "class");
  return kind == "page-number" || kind == "footer" || kind == "date-time" || kind == "header";
}

// A count attribute (table:number-columns-repeated, text:c); `fallback` when absent or not a number, and never
// more than `most`.
std::size_t count_attribute(xmlNode* node, const char* name, std::size_t fallback, std::size_t most) {
  const std::string value = xml::attribute(node, name);
  std::size_t count = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), count);
  if (value.empty() || end != value.data() + value.size()) return fallback;
  if (error == std::errc::result_out_of_range) return most;
  if (error != std::errc() || count == 0) return fallback;
  return std::min(count, most);
}

// What the tables of one file may still write: cells and bytes, repeats included, and why the rest was left out
// once they are spent.
struct Budget {
  Budget(std::uint64_t most_bytes, std::size_t most_cells) : max_bytes(most_bytes), max_cells(most_cells) {}
  std::uint64_t max_bytes;
  std::size_t max_cells;
  std::size_t cells = 0;
  std::uint64_t bytes = 0;
  std::string cut;  // "more than 5000000 cells"; "" while within bounds

  // Counts what is about to be written; false (and why kept) past a limit.
  bool spend(std::size_t more_cells, std::size_t more_bytes) {
    cells += more_cells;
    bytes += more_bytes;
    if (cells > max_cells) {
      cut = "more than " + std::to_string(max_cells) + " cells";
    } else if (bytes > max_bytes) {
      cut = "more than " + std::to_string(max_bytes) + " bytes of text in tables";
    }
    return cut.empty();
  }
};

// Renders OpenDocument text into a TextBuilder: paragraphs and headings as blocks, table rows as lines of
// tab-separated cells. Iterative throughout (a stack of open rows and cells, not recursion), so nesting depth
// costs no stack; rows and cells are built apart from the text so that repeats and trailing empty cells can be
// settled when they end.
class Renderer {
 public:
  // `paragraph_break`: 2 for a blank line between paragraphs (text documents), 1 for a line (slides).
  Renderer(int paragraph_break, Budget& budget) : paragraph_break_(paragraph_break), budget_(budget) {}

  void render(xmlNode* root) {
    xml::walk(
        root, [this](xmlNode* n) { return enter(n); }, [this](xmlNode* n) { leave(n); });
  }

  TextBuilder& out() { return root_; }
  // The notes met since the last call, in order (footnotes, endnotes, a page's speaker notes).
  std::vector<xmlNode*> take_notes() { return std::exchange(notes_, {}); }

 private:
  enum class Kind { kRow, kCell };
  struct Frame {
    Frame(Kind frame_kind, xmlNode* frame_node, std::size_t frame_repeat)
        : kind(frame_kind), node(frame_node), repeat(frame_repeat) {}
    Kind kind;
    xmlNode* node;
    std::size_t repeat;
    TextBuilder text;       // a cell's content
    std::string line;       // a row's cells so far
    std::size_t cells = 0;  // a row's cells with text
    std::size_t gap = 0;    // a row's empty cells since the last one with text
    bool started = false;   // a row has had a cell
  };

  // Where text goes now: the innermost open cell, else the document; nullptr between a row's cells.
  TextBuilder* target() {
    if (frames_.empty()) return &root_;
    return frames_.back().kind == Kind::kCell ? &frames_.back().text : nullptr;
  }

  bool enter(xmlNode* node) {
    if (!budget_.cut.empty()) return false;
    TextBuilder* out = target();
    if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE) {
      // ODF collapses white space in text as HTML does; <text:s> and <text:tab> stand for the kept kind.
      if (out != nullptr) out->add_flowing(xml::chars(node->content));
      return false;
    }
    if (node->type != XML_ELEMENT_NODE) return false;
    const std::string_view name = xml::name(node);
    if (skipped(node)) return false;
    if (name == "note" || name == "notes") {
      notes_.push_back(node);
      return false;
    }
    if (name == "table-row") {
      frames_.push_back(Frame{Kind::kRow, node, count_attribute(node, "number-rows-repeated", 1, kMaxRepeat)});
      return true;
    }
    if (name == "table-cell" || name == "covered-table-cell") {
      frames_.push_back(
          Frame{Kind::kCell, node,
                count_attribute(node, "number-columns-repeated", 1, std::numeric_limits<std::size_t>::max())});
      return true;
    }
    if (out == nullptr) return true;
    if (name == "p" || name == "h") {
      out->request_break(paragraph_break_);
    } else if (name == "s") {
      out->add_verbatim(std::string(count_attribute(node, "c", 1, kMaxSpaces), ' '));
    } else if (name == "tab") {
      out->add_verbatim("\t");
    } else if (name == "line-break") {
      out->add_line_break();
    } else if (name == "table") {
      out->request_break(1);
    } else if (name == "frame") {
      return !repeated_frame(node);
    }
    return true;
  }

  void leave(xmlNode* node) {
    if (!frames_.empty() && frames_.back().node == node) {
      if (frames_.back().kind == Kind::kCell) {
        end_cell();
      } else {
        end_row();
      }
      return;
    }
    if (node->type != XML_ELEMENT_NODE) return;
    TextBuilder* out = target();
    if (out == nullptr) return;
    const std::string_view name = xml::name(node);
    if (name == "p" || name == "h") {
      out->request_break(paragraph_break_);
    } else if (name == "table") {
      out->request_break(1);
    }
  }

  // A cell's text, on one line, joins its row at its column: a tab for each cell before it since the last
  // with text. Empty cells only add to the gap, so trailing ones (a row padded to the sheet's width) add nothing.
  void end_cell() {
    const std::string content = text::collapse_whitespace(frames_.back().text.finish());
    const std::size_t repeat = frames_.back().repeat;
    frames_.pop_back();
    if (frames_.empty() || frames_.back().kind != Kind::kRow) {
      // A cell outside a row: its text as it is.
      if (TextBuilder* out = target(); out != nullptr && !content.empty()) {
        out->request_space();
        out->add_verbatim(content);
        out->request_space();
      }
      return;
    }
    Frame& row = frames_.back();
    if (content.empty()) {
      const std::size_t passed = row.started ? repeat : repeat - 1;
      row.gap = std::min(kColumns, row.gap + std::min(passed, kColumns));
      row.started = true;
      return;
    }
    for (std::size_t i = 0; i < std::min(repeat, kMaxRepeat); ++i) {
      if (row.started) row.gap = std::min(kColumns, row.gap + 1);
      if (!budget_.spend(1, row.gap + content.size())) return;
      row.started = true;
      row.line.append(row.gap, '\t');
      row.line += content;
      row.gap = 0;
      ++row.cells;
    }
  }

  // A row with text becomes a line (repeated as it says, within bounds); an empty one adds nothing.
  void end_row() {
    const std::string line = std::move(frames_.back().line);
    const std::size_t repeat = frames_.back().repeat;
    const std::size_t cells = frames_.back().cells;
    frames_.pop_back();
    TextBuilder* out = target();
    if (out == nullptr || line.empty()) return;
    for (std::size_t i = 0; i < repeat; ++i) {
      // The first copy's cells were counted as they were read.
      if (i > 0 && !budget_.spend(cells, line.size())) return;
      out->request_break(1);
      out->add_verbatim(line);
      out->request_break(1);
    }
  }

  int paragraph_break_;
  Budget& budget_;
  TextBuilder root_;
  std::vector<Frame> frames_;
  std::vector<xmlNode*> notes_;
};

// An element's text on one line (a heading, a title frame).
std::string line_text(xmlNode* node) {
  Budget budget(std::numeric_limits<std::uint64_t>::max(), std::numeric_limits<std::size_t>::max());
  Renderer renderer(1, budget);
  renderer.render(node);
  return text::collapse_whitespace(renderer.out().finish());
}

// Sets the title and metadata from meta.xml: dc:title; meta:initial-creator (else dc:creator) → "author",
// dc:creator when both are there → "modified_by" (ODF's dc:creator is who saved it last), meta:creation-date
// → "created", dc:date → "modified".
void read_meta(const ooxml::Parts& parts, ExtractContext& context, const std::string& key, ExtractedDocument& doc) {
  const xml::DocPtr meta_doc = ooxml::parse_optional(parts, "meta.xml", context, key);
  if (!meta_doc) return;
  xmlNode* meta = xml::find(xmlDocGetRootElement(meta_doc.get()), "meta");
  if (meta == nullptr) return;
  std::map<std::string_view, std::string> values;
  for (xmlNode* n = meta->children; n != nullptr; n = n->next) {
    if (n->type != XML_ELEMENT_NODE) continue;
    std::string value = text::collapse_whitespace(xml::text_content(n));
    if (!value.empty()) values.emplace(xml::name(n), std::move(value));
  }
  const auto take = [&values](std::string_view name) {
    const auto it = values.find(name);
    return it == values.end() ? std::string() : it->second;
  };
  const auto add = [&doc](const char* name, std::string value) {
    if (!value.empty()) doc.metadata.emplace_back(name, std::move(value));
  };
  doc.title = take("title");
  const std::string initial_creator = take("initial-creator");
  const std::string creator = take("creator");
  add("author", initial_creator.empty() ? creator : initial_creator);
  if (!initial_creator.empty()) add("modified_by", creator);
  add("created", take("creation-date"));
  add("modified", take("date"));
}

// A document saved with a password keeps content.xml encrypted; its manifest says so.
void refuse_encrypted(const ooxml::Parts& parts) {
  const std::string* manifest = ooxml::find_part(parts, "META-INF/manifest.xml");
  if (manifest == nullptr || manifest->find("encryption-data") == std::string::npos) return;
  const xml::DocPtr doc = xml::parse(*manifest, "META-INF/manifest.xml");
  if (xml::find(xmlDocGetRootElement(doc.get()), "encryption-data") != nullptr) {
    throw Error(ErrorCode::kUnsupported, "encrypted (saved with a password): not read");
  }
}

// The office:text, office:spreadsheet or office:presentation element of content.xml.
xmlNode* body_of(xmlNode* content, std::string_view kind, std::string_view what) {
  xmlNode* body = ooxml::child(ooxml::child(content, "body"), kind);
  if (body == nullptr) {
    throw Error(ErrorCode::kParse,
                "not " + std::string(what) + ": content.xml has no <office:" + std::string(kind) + ">");
  }
  return body;
}

// Appends notes after the text (footnotes and endnotes in a text document), each a paragraph of its own.
void render_notes(Renderer& renderer) {
  // Rendering a note may find notes within it: they join the queue.
  std::vector<xmlNode*> queue = renderer.take_notes();
  for (std::size_t i = 0; i < queue.size(); ++i) {
    xmlNode* body = ooxml::child(queue[i], "note-body");
    if (body == nullptr) continue;
    renderer.out().request_break(2);
    renderer.render(body);
    renderer.out().request_break(2);
    for (xmlNode* nested : renderer.take_notes()) queue.push_back(nested);
  }
}

// The first level-1 heading's text (text:h without a level is level 1).
std::string first_heading(xmlNode* body) {
  xmlNode* found = nullptr;
  xml::walk(
      body,
      [&found](xmlNode* n) {
        if (found != nullptr || n->type != XML_ELEMENT_NODE || skipped(n)) return false;
        if (xml::name(n) != "h") return true;
        const std::string level = xml::attribute(n, "outline-level");
        if ((level.empty() || level == "1") && !line_text(n).empty()) found = n;
        return false;
      },
      [](xmlNode* /*n*/) {});
  return found != nullptr ? line_text(found) : std::string();
}

// Warns of text a limit left out.
void warn_if_cut(const Budget& budget, ExtractContext& context, const std::string& key) {
  if (!budget.cut.empty()) context.warn(key, budget.cut + ": the rest are left out");
}

void read_text(xmlNode* body, ExtractContext& context, const std::string& key, ExtractedDocument& doc) {
  Budget budget(context.limits().max_expanded_bytes, context.limits().max_cells);
  Renderer renderer(2, budget);
  renderer.render(body);
  render_notes(renderer);
  warn_if_cut(budget, context, key);
  doc.text = renderer.out().finish();
  if (doc.title.empty()) doc.title = first_heading(body);
}

void read_spreadsheet(xmlNode* body, ExtractContext& context, const std::string& key, ExtractedDocument& doc) {
  Budget budget(context.limits().max_expanded_bytes, context.limits().max_cells);
  Renderer renderer(1, budget);
  TextBuilder& out = renderer.out();
  std::size_t sheets = 0;
  for (xmlNode* table = ooxml::child(body, "table"); table != nullptr; table = table->next) {
    if (table->type != XML_ELEMENT_NODE || xml::name(table) != "table") continue;
    const std::string name = text::collapse_whitespace(xml::attribute(table, "name"));
    ++sheets;
    out.request_break(2);
    doc.sections.push_back({out.next_offset(), "sheet " + (name.empty() ? std::to_string(sheets) : name)});
    out.add_verbatim(name);
    out.request_break(1);
    renderer.render(table);
  }
  renderer.take_notes();
  warn_if_cut(budget, context, key);
  doc.text = out.finish();
  for (Section& section : doc.sections) section.begin -= std::min(section.begin, out.leading_trimmed());
  doc.metadata.emplace_back("sheets", std::to_string(sheets));
}

// The text of a page's title frame (presentation:class="title"), on one line.
std::string page_title(xmlNode* page) {
  for (xmlNode* n = page->children; n != nullptr; n = n->next) {
    if (n->type == XML_ELEMENT_NODE && xml::name(n) == "frame" && xml::attribute(n, "class") == "title") {
      return line_text(n);
    }
  }
  return {};
}

void read_presentation(xmlNode* body, ExtractContext& context, const std::string& key, ExtractedDocument& doc) {
  Budget budget(context.limits().max_expanded_bytes, context.limits().max_cells);
  Renderer renderer(1, budget);
  TextBuilder& out = renderer.out();
  std::size_t slides = 0;
  for (xmlNode* page = ooxml::child(body, "page"); page != nullptr; page = page->next) {
    if (page->type != XML_ELEMENT_NODE || xml::name(page) != "page") continue;
    ++slides;
    out.request_break(2);
    doc.sections.push_back({out.next_offset(), "slide " + std::to_string(slides)});
    renderer.render(page);
    if (slides == 1 && doc.title.empty()) doc.title = page_title(page);
    // Speaker notes: the text of <presentation:notes>, after the slide's.
    Renderer notes(1, budget);
    for (xmlNode* note : renderer.take_notes()) {
      for (xmlNode* part = note->children; part != nullptr; part = part->next) notes.render(part);
    }
    const std::string notes_text = notes.out().finish();
    if (!notes_text.empty()) {
      out.request_break(2);
      out.add_verbatim("Notes:");
      out.request_break(1);
      out.add_verbatim(notes_text);
    }
  }
  warn_if_cut(budget, context, key);
  doc.text = out.finish();
  for (Section& section : doc.sections) section.begin -= std::min(section.begin, out.leading_trimmed());
  doc.metadata.emplace_back("slides", std::to_string(slides));
}

enum class Kind { kText, kSpreadsheet, kPresentation };

void extract(Kind kind, const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) {
  const ooxml::Parts parts = archive::read_all(input.bytes, context, input.key);
  const std::string_view what = kind == Kind::kText          ? "an ODT file"
                                : kind == Kind::kSpreadsheet ? "an ODS file"
                                                             : "an ODP file";
  refuse_encrypted(parts);
  const xml::DocPtr content = ooxml::parse_required(parts, "content.xml", what);
  xmlNode* root = xmlDocGetRootElement(content.get());

  ExtractedDocument doc;
  doc.key = input.key;
  read_meta(parts, context, input.key, doc);
  switch (kind) {
    case Kind::kText: read_text(body_of(root, "text", what), context, input.key, doc); break;
    case Kind::kSpreadsheet: read_spreadsheet(body_of(root, "spreadsheet", what), context, input.key, doc); break;
    case Kind::kPresentation: read_presentation(body_of(root, "presentation", what), context, input.key, doc); break;
  }
  out.push_back(std::move(doc));
}

void extract_text(const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) {
  extract(Kind::kText, input, context, out);
}
void extract_spreadsheet(const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) {
  extract(Kind::kSpreadsheet, input, context, out);
}
void extract_presentation(const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) {
  extract(Kind::kPresentation, input, context, out);
}

// The media type in the first member, as the format requires; templates (".text-template") are read alike.
bool declares(std::string_view head, std::string_view media_type) {
  const std::string_view declared = ooxml::stored_mimetype(head);
  return declared.starts_with(media_type) &&
         (declared.size() == media_type.size() || declared.substr(media_type.size()) == "-template");
}

bool sniff_text(std::string_view head) {
  return declares(head, "application/vnd.oasis.opendocument.text");
}
bool sniff_spreadsheet(std::string_view head) {
  return declares(head, "application/vnd.oasis.opendocument.spreadsheet");
}
bool sniff_presentation(std::string_view head) {
  return declares(head, "application/vnd.oasis.opendocument.presentation");
}

}  // namespace odf_reader
}  // namespace

const FileFormat kOdtFormat{
    .name = "odt",
    .label = "OpenDocument text (ODT)",
    .extensions = {".odt"},
    .sniff = odf_reader::sniff_text,
    .text_input = false,
    .binary = true,
    .extract = odf_reader::extract_text,
};

const FileFormat kOdsFormat{
    .name = "ods",
    .label = "OpenDocument spreadsheet (ODS)",
    .extensions = {".ods"},
    .sniff = odf_reader::sniff_spreadsheet,
    .text_input = false,
    .binary = true,
    .extract = odf_reader::extract_spreadsheet,
};

const FileFormat kOdpFormat{
    .name = "odp",
    .label = "OpenDocument presentation (ODP)",
    .extensions = {".odp"},
    .sniff = odf_reader::sniff_presentation,
    .text_input = false,
    .binary = true,
    .extract = odf_reader::extract_presentation,
};

}  // namespace sieve::search
