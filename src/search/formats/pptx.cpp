// PowerPoint presentations (.pptx, .pptm): each slide in the presentation's order, the paragraphs of its shapes
// one per line, then its speaker notes. A section per slide. Slide numbers, dates and footers are left out (the
// same on every slide), and so are layouts and masters, whose text is the template's ("Click to edit").
#include <set>

#include "search/formats/archive_reader.hpp"
#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/ooxml.hpp"
#include "search/formats/text_util.hpp"
#include "search/formats/xml_util.hpp"

namespace sieve::search {
namespace {
namespace pptx_reader {

using text::TextBuilder;

// Placeholders whose text is not the slide's own: slide number, date, footer, header, and the picture of the
// slide on a notes page.
const std::set<std::string_view> kRepeatedPlaceholders = {"sldNum", "dt", "ftr", "hdr", "sldImg"};

// The placeholder type of a shape (<p:nvSpPr><p:nvPr><p:ph type="title"/>); "" when it is not a placeholder or
// has no type.
std::string placeholder_type(xmlNode* shape) {
  for (xmlNode* c = shape->children; c != nullptr; c = c->next) {
    // p:nvSpPr, p:nvGraphicFramePr, p:nvPicPr...: the shape's non-visual properties.
    if (c->type != XML_ELEMENT_NODE || !xml::name(c).starts_with("nv")) continue;
    xmlNode* placeholder = ooxml::child(ooxml::child(c, "nvPr"), "ph");
    return placeholder != nullptr ? xml::attribute(placeholder, "type") : std::string();
  }
  return {};
}

// Renders the DrawingML text of a slide (or notes page) into a TextBuilder: a line per paragraph, table cells
// separated by tabs with a row per line.
class Renderer {
 public:
  explicit Renderer(TextBuilder& out) : out_(out) {}

  void render(xmlNode* root) {
    xml::walk(
        root, [this](xmlNode* n) { return enter(n); }, [this](xmlNode* n) { leave(n); });
  }

 private:
  bool enter(xmlNode* node) {
    if (node->type != XML_ELEMENT_NODE) return false;
    const std::string_view name = xml::name(node);
    if (name == "t") {
      out_.add(xml::text_content(node));
      return false;
    }
    if (name == "sp" || name == "graphicFrame") return !kRepeatedPlaceholders.contains(placeholder_type(node));
    // The older rendering of what mc:Choice holds.
    if (name == "Fallback") return false;
    if (name == "p") {
      line_break();
    } else if (name == "br") {
      if (cells_ >= 0) {
        out_.space();
      } else {
        out_.line_break();
      }
    } else if (name == "tr") {
      out_.request_break(1);
      cells_ = 0;
    } else if (name == "tc") {
      if (cells_ >= 0 && cells_++ > 0) out_.tab();
    }
    return true;
  }

  void leave(xmlNode* node) {
    if (node->type != XML_ELEMENT_NODE) return;
    const std::string_view name = xml::name(node);
    if (name == "p") {
      line_break();
    } else if (name == "tr") {
      cells_ = -1;
      out_.request_break(1);
    }
  }

  // Paragraphs end lines, except in a table cell, which stays on its row's line.
  void line_break() {
    if (cells_ >= 0) {
      out_.space();
    } else {
      out_.request_break(1);
    }
  }

  ooxml::RunText out_;
  int cells_ = -1;  // cells seen in the current table row; -1 outside tables
};

std::string render_text(xmlNode* root) {
  TextBuilder builder;
  Renderer(builder).render(root);
  return builder.finish();
}

// The text of a slide's title placeholder, on one line; "" when it has none.
std::string slide_title(xmlNode* slide) {
  xmlNode* found = nullptr;
  xml::walk(
      slide,
      [&found](xmlNode* n) {
        if (found != nullptr || n->type != XML_ELEMENT_NODE) return false;
        if (xml::name(n) != "sp") return true;
        const std::string type = placeholder_type(n);
        if (type == "title" || type == "ctrTitle") found = n;
        return false;
      },
      [](xmlNode* /*n*/) {});
  return found != nullptr ? text::collapse_whitespace(render_text(found)) : std::string();
}

// The slides' parts in the presentation's order (<p:sldIdLst>); "" for one the presentation names no part for.
std::vector<std::string> slide_paths(xmlNode* presentation, const ooxml::Relationships& relationships) {
  std::vector<std::string> paths;
  for (xmlNode* n = ooxml::child(ooxml::child(presentation, "sldIdLst"), "sldId"); n != nullptr; n = n->next) {
    if (n->type != XML_ELEMENT_NODE || xml::name(n) != "sldId") continue;
    const auto it = relationships.find(ooxml::relationship_id(n));
    paths.push_back(it != relationships.end() ? it->second.target : std::string());
  }
  return paths;
}

// The speaker notes of a slide; "" when it has none.
std::string slide_notes(const ooxml::Parts& parts, const std::string& slide_path, ExtractContext& context,
                        const std::string& key) {
  const std::string path = ooxml::target_of_type(ooxml::relationships(parts, slide_path, context, key), "notesSlide");
  const xml::DocPtr notes = ooxml::parse_optional(parts, path, context, key);
  return notes ? render_text(xmlDocGetRootElement(notes.get())) : std::string();
}

void extract(const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) {
  ooxml::refuse_compound_file(input.bytes);
  const ooxml::Parts parts = archive::read_all(input.bytes, context, input.key);
  const std::string main = ooxml::main_part(parts, context, input.key, "ppt/presentation.xml");
  const xml::DocPtr presentation = ooxml::parse_required(parts, main, "a PPTX file");
  const std::vector<std::string> slides =
      slide_paths(xmlDocGetRootElement(presentation.get()), ooxml::relationships(parts, main, context, input.key));

  ExtractedDocument doc;
  doc.key = input.key;
  ooxml::read_core_properties(parts, context, input.key, doc);
  doc.metadata.emplace_back("slides", std::to_string(slides.size()));

  TextBuilder builder;
  std::string first_title;
  for (std::size_t i = 0; i < slides.size(); ++i) {
    const std::string number = std::to_string(i + 1);
    builder.request_break(2);
    doc.sections.push_back({builder.next_offset(), "slide " + number});
    if (ooxml::find_part(parts, slides[i]) == nullptr) {
      context.fail(input.key, "slide " + number + ": its part " +
                                  (slides[i].empty() ? "is not named" : slides[i] + " is missing"));
      continue;
    }
    const xml::DocPtr slide = ooxml::parse_optional(parts, slides[i], context, input.key);
    if (!slide) continue;
    xmlNode* root = xmlDocGetRootElement(slide.get());
    Renderer(builder).render(root);
    if (i == 0) first_title = slide_title(root);
    const std::string notes = slide_notes(parts, slides[i], context, input.key);
    if (!notes.empty()) {
      builder.request_break(2);
      builder.add_verbatim("Notes:");
      builder.request_break(1);
      builder.add_verbatim(notes);
    }
  }
  doc.text = builder.finish();
  for (Section& section : doc.sections) section.begin -= std::min(section.begin, builder.leading_trimmed());
  if (doc.title.empty()) doc.title = std::move(first_title);
  out.push_back(std::move(doc));
}

bool sniff(std::string_view head) {
  return ooxml::sniff_package(head, "ppt/");
}

}  // namespace pptx_reader
}  // namespace

const FileFormat kPptxFormat{
    .name = "pptx",
    .label = "PowerPoint presentation (PPTX)",
    .extensions = {".pptx", ".pptm"},
    .sniff = pptx_reader::sniff,
    .text_input = false,
    .binary = true,
    .extract = pptx_reader::extract,
};

}  // namespace sieve::search
