// Word documents (.docx, .docm): the text of the main part (word/document.xml) paragraph by paragraph, tables
// cell by cell, then its footnotes and endnotes. Headers, footers and comments are left out: they repeat on
// every page or are not part of the text.
#include <set>

#include "search/formats/archive_reader.hpp"
#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/ooxml.hpp"
#include "search/formats/text_util.hpp"
#include "search/formats/xml_util.hpp"

namespace sieve::search {
namespace {
namespace docx_reader {

using text::TextBuilder;

// Elements whose content is not text of the document: properties, deleted and moved-away text (a tracked
// change), field instructions, ruby annotations, and the older of two renderings (mc:Fallback repeats
// mc:Choice for readers that do not know it).
const std::set<std::string_view> kSkipped = {
    "pPr", "rPr",      "sectPr",    "tblPr",        "tblGrid", "trPr",     "tcPr", "sdtPr",   "delText",
    "del", "moveFrom", "instrText", "delInstrText", "fldData", "Fallback", "rt",   "tblPrEx",
};

// Renders WordprocessingML into a TextBuilder: paragraphs separated by a blank line, table cells by a tab and
// rows by a line (inside a cell, paragraphs and breaks become spaces so that a row stays on one line).
class Renderer {
 public:
  explicit Renderer(TextBuilder& out) : out_(out) {}

  void render(xmlNode* root) {
    xml::walk(
        root, [this](xmlNode* n) { return enter(n); }, [this](xmlNode* n) { leave(n); });
  }

 private:
  [[nodiscard]] bool in_table() const { return !rows_.empty(); }

  // A paragraph's edge, a tab or a line break: inside a table, a space keeps the row on its line.
  void block_break() {
    if (in_table()) {
      out_.space();
    } else {
      out_.request_break(2);
    }
  }

  bool enter(xmlNode* node) {
    // Text outside <w:t> is only the file's indentation.
    if (node->type != XML_ELEMENT_NODE) return false;
    const std::string_view name = xml::name(node);
    if (kSkipped.contains(name)) return false;
    if (name == "t") {
      out_.add(xml::text_content(node));
      return false;
    }
    if (name == "p") {
      block_break();
    } else if (name == "tab" || name == "ptab") {
      if (in_table()) {
        out_.space();
      } else {
        out_.tab();
      }
    } else if (name == "br" || name == "cr") {
      if (in_table()) {
        out_.space();
      } else {
        out_.line_break();
      }
    } else if (name == "noBreakHyphen") {
      out_.add("-");
    } else if (name == "tbl") {
      if (!in_table()) out_.request_break(2);
    } else if (name == "tr") {
      // A table inside a cell is flattened into that cell.
      if (in_table()) {
        out_.space();
      } else {
        out_.request_break(1);
      }
      rows_.push_back(0);
    } else if (name == "tc") {
      if (!rows_.empty() && rows_.back()++ > 0) {
        if (rows_.size() == 1) {
          out_.tab();
        } else {
          out_.space();
        }
      }
    } else if (name == "sdt") {
      // A content control that shows its placeholder ("Click or tap here to enter text.") holds no text yet.
      if (ooxml::child(ooxml::child(node, "sdtPr"), "showingPlcHdr") != nullptr) return false;
    }
    return true;
  }

  void leave(xmlNode* node) {
    if (node->type != XML_ELEMENT_NODE) return;
    const std::string_view name = xml::name(node);
    if (name == "p") {
      block_break();
    } else if (name == "tr") {
      rows_.pop_back();
      if (in_table()) {
        out_.space();
      } else {
        out_.request_break(1);
      }
    } else if (name == "tbl") {
      if (!in_table()) out_.request_break(2);
    }
  }

  ooxml::RunText out_;
  std::vector<int> rows_;  // cells seen in each open row, outermost first
};

// One paragraph's text on one line (for the title).
std::string paragraph_text(xmlNode* paragraph) {
  TextBuilder builder;
  Renderer(builder).render(paragraph);
  return text::collapse_whitespace(builder.finish());
}

std::string paragraph_style(xmlNode* paragraph) {
  xmlNode* style = ooxml::child(ooxml::child(paragraph, "pPr"), "pStyle");
  return style != nullptr ? xml::attribute(style, "val") : std::string();
}

// The ids of Word's built-in "Title" and "heading 1" paragraph styles. Ids are translated (a German Word
// writes "berschrift1"), so they are found by their names in the styles part, which are not.
struct TitleStyles {
  std::set<std::string> title = {"Title"};
  std::set<std::string> heading1 = {"Heading1"};
};

TitleStyles title_styles(const ooxml::Parts& parts, const std::string& path, ExtractContext& context,
                         const std::string& key) {
  TitleStyles styles;
  const xml::DocPtr doc = ooxml::parse_optional(parts, path, context, key);
  if (!doc) return styles;
  for (xmlNode* n = xmlDocGetRootElement(doc.get())->children; n != nullptr; n = n->next) {
    if (n->type != XML_ELEMENT_NODE || xml::name(n) != "style" || xml::attribute(n, "type") != "paragraph") continue;
    xmlNode* name_element = ooxml::child(n, "name");
    if (name_element == nullptr) continue;
    const std::string name = text::lowercase(xml::attribute(name_element, "val"));
    if (name == "title") styles.title.insert(xml::attribute(n, "styleId"));
    if (name == "heading 1") styles.heading1.insert(xml::attribute(n, "styleId"));
  }
  return styles;
}

// The text of the first paragraph styled as the title, else of the first level-1 heading; "" when neither has
// text.
std::string title_from_headings(xmlNode* body, const TitleStyles& styles) {
  xmlNode* title = nullptr;
  xmlNode* heading = nullptr;
  xml::walk(
      body,
      [&](xmlNode* n) {
        if (title != nullptr || n->type != XML_ELEMENT_NODE) return false;
        if (xml::name(n) != "p") return !kSkipped.contains(xml::name(n));
        const std::string style = paragraph_style(n);
        if (styles.title.contains(style) && !paragraph_text(n).empty()) title = n;
        if (heading == nullptr && styles.heading1.contains(style) && !paragraph_text(n).empty()) heading = n;
        return false;
      },
      [](xmlNode* /*n*/) {});
  if (title != nullptr) return paragraph_text(title);
  return heading != nullptr ? paragraph_text(heading) : std::string();
}

// Footnotes or endnotes after the body, each a paragraph of its own; the separator lines Word keeps among
// them are not notes.
void render_notes(xmlNode* notes, Renderer& renderer, TextBuilder& out) {
  for (xmlNode* note = notes->children; note != nullptr; note = note->next) {
    if (note->type != XML_ELEMENT_NODE) continue;
    const std::string type = xml::attribute(note, "type");
    if (type == "separator" || type == "continuationSeparator" || type == "continuationNotice") continue;
    out.request_break(2);
    renderer.render(note);
    out.request_break(2);
  }
}

void extract(const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) {
  ooxml::refuse_compound_file(input.bytes);
  const ooxml::Parts parts = archive::read_all(input.bytes, context, input.key);
  const std::string main = ooxml::main_part(parts, context, input.key, "word/document.xml");
  const xml::DocPtr document = ooxml::parse_required(parts, main, "a DOCX file");
  xmlNode* root = xmlDocGetRootElement(document.get());
  xmlNode* body = ooxml::child(root, "body");
  if (body == nullptr) body = root;

  ExtractedDocument doc;
  doc.key = input.key;
  ooxml::read_core_properties(parts, context, input.key, doc);
  const ooxml::Relationships relationships = ooxml::relationships(parts, main, context, input.key);
  const std::string folder = ooxml::folder_of(main);
  const auto part_of_type = [&](std::string_view type) {
    std::string path = ooxml::target_of_type(relationships, type);
    return path.empty() ? folder + std::string(type) + ".xml" : path;
  };

  TextBuilder builder;
  Renderer renderer(builder);
  renderer.render(body);
  for (const std::string_view type : {"footnotes", "endnotes"}) {
    const xml::DocPtr notes = ooxml::parse_optional(parts, part_of_type(type), context, input.key);
    if (notes) render_notes(xmlDocGetRootElement(notes.get()), renderer, builder);
  }
  doc.text = builder.finish();
  if (doc.title.empty()) {
    doc.title = title_from_headings(body, title_styles(parts, part_of_type("styles"), context, input.key));
  }
  out.push_back(std::move(doc));
}

bool sniff(std::string_view head) {
  return ooxml::sniff_package(head, "word/");
}

}  // namespace docx_reader
}  // namespace

const FileFormat kDocxFormat{
    .name = "docx",
    .label = "Word document (DOCX)",
    .extensions = {".docx", ".docm"},
    .sniff = docx_reader::sniff,
    .text_input = false,
    .binary = true,
    .extract = docx_reader::extract,
};

}  // namespace sieve::search
