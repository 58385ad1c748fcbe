// HTML (.html, .htm, .xhtml, and pages that start like one): visible text through libxml2's HTML parser.
#include "search/formats/html.hpp"

#include <libxml/HTMLparser.h>

#include <cctype>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>

#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/text_encoding.hpp"
#include "search/formats/text_util.hpp"
#include "search/formats/xml_util.hpp"
#include "sieve/error.hpp"
#include "tokenizer/core/unicode.hpp"

namespace sieve::search {
namespace {

using namespace text;

enum class HtmlKind {
  kInline,     // text flows through
  kSkip,       // not rendered text
  kLineBlock,  // starts and ends a line
  kParagraph,  // a blank line before and after
  kList,       // a paragraph, or a line inside another list
  kLineBreak,  // <br>
  kCell,       // table cell: a space between neighbours
  kPre,        // whitespace kept
  kImage,      // its alt text stands in for it
};

HtmlKind html_kind(std::string_view name) {
  static const std::map<std::string_view, HtmlKind> kinds = [] {
    std::map<std::string_view, HtmlKind> map;
    const auto add = [&map](HtmlKind kind, std::initializer_list<std::string_view> names) {
      for (const std::string_view n : names) map.emplace(n, kind);
    };
    // <iframe> and <canvas> hold fallback text for browsers that cannot show them, which readers never see.
    add(HtmlKind::kSkip, {"script", "style", "noscript", "template", "svg", "head", "title", "iframe", "canvas"});
    add(HtmlKind::kParagraph, {"p",      "h1",      "h2",      "h3",       "h4",     "h5",     "h6",    "blockquote",
                               "table",  "section", "article", "header",   "footer", "nav",    "aside", "main",
                               "figure", "address", "details", "fieldset", "form",   "hgroup", "hr"});
    add(HtmlKind::kList, {"ul", "ol", "dl", "menu", "dir"});
    add(HtmlKind::kLineBlock, {"div", "li", "dt", "dd", "tr", "thead", "tbody", "tfoot", "caption", "figcaption",
                               "summary", "legend", "option", "center", "dialog", "body"});
    add(HtmlKind::kLineBreak, {"br"});
    add(HtmlKind::kCell, {"td", "th"});
    add(HtmlKind::kPre, {"pre", "listing", "xmp", "textarea"});
    add(HtmlKind::kImage, {"img"});
    return map;
  }();
  const auto it = kinds.find(name);
  return it == kinds.end() ? HtmlKind::kInline : it->second;
}

std::string html_subtree_title(xmlNode* node);

class HtmlRenderer {
 public:
  explicit HtmlRenderer(std::string* first_h1) : first_h1_(first_h1) {}

  void render(xmlNode* root) {
    xml::walk(
        root, [this](xmlNode* n) { return enter(n); }, [this](xmlNode* n) { leave(n); });
  }
  std::string finish() { return out_.finish(); }

 private:
  bool enter(xmlNode* node) {
    if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE) {
      std::string_view text = xml::chars(node->content);
      if (pre_depth_ > 0) {
        // As in browsers, a newline right after <pre> only separates the tag from the content.
        if (at_pre_start_ && text.substr(0, 1) == "\n") text.remove_prefix(1);
        at_pre_start_ = false;
        out_.add_verbatim(text);
      } else {
        out_.add_flowing(text);
      }
      return false;
    }
    if (node->type != XML_ELEMENT_NODE) return false;
    const std::string_view name = xml::name(node);
    switch (html_kind(name)) {
      case HtmlKind::kSkip: return false;
      case HtmlKind::kInline: break;
      case HtmlKind::kLineBlock: out_.request_break(1); break;
      case HtmlKind::kParagraph:
        out_.request_break(2);
        if (name == "h1" && first_h1_ != nullptr && first_h1_->empty()) *first_h1_ = html_subtree_title(node);
        break;
      case HtmlKind::kList:
        out_.request_break(list_depth_ > 0 ? 1 : 2);
        ++list_depth_;
        break;
      case HtmlKind::kLineBreak: out_.add_line_break(); return false;
      case HtmlKind::kCell: out_.request_space(); break;
      case HtmlKind::kPre:
        out_.request_break(2);
        ++pre_depth_;
        at_pre_start_ = true;
        break;
      case HtmlKind::kImage: {
        const xml::CharPtr alt(xmlGetProp(node, reinterpret_cast<const xmlChar*>("alt")));
        out_.request_space();
        out_.add_flowing(xml::chars(alt.get()));
        out_.request_space();
        return false;
      }
    }
    return true;
  }

  void leave(xmlNode* node) {
    if (node->type != XML_ELEMENT_NODE) return;
    switch (html_kind(xml::name(node))) {
      case HtmlKind::kSkip:
      case HtmlKind::kInline:
      case HtmlKind::kLineBreak:
      case HtmlKind::kImage: break;
      case HtmlKind::kLineBlock: out_.request_break(1); break;
      case HtmlKind::kParagraph: out_.request_break(2); break;
      case HtmlKind::kList:
        --list_depth_;
        out_.request_break(list_depth_ > 0 ? 1 : 2);
        break;
      case HtmlKind::kCell: out_.request_space(); break;
      case HtmlKind::kPre:
        --pre_depth_;
        out_.request_break(2);
        break;
    }
  }

  TextBuilder out_;
  std::string* first_h1_;
  int pre_depth_ = 0;
  int list_depth_ = 0;
  bool at_pre_start_ = false;
};

// The text of a heading or <title> on one line.
std::string html_subtree_title(xmlNode* node) {
  HtmlRenderer renderer(nullptr);
  for (xmlNode* child = node->children; child != nullptr; child = child->next) renderer.render(child);
  return collapse_whitespace(renderer.finish());
}

// The first <title> in the document outside embedded SVG (which has titles of its own) and unrendered content.
xmlNode* find_title_element(xmlDoc* doc) {
  xmlNode* found = nullptr;
  for (xmlNode* top = doc->children; top != nullptr && found == nullptr; top = top->next) {
    xml::walk(
        top,
        [&found](xmlNode* n) {
          if (found != nullptr || n->type != XML_ELEMENT_NODE) return false;
          const std::string_view name = xml::name(n);
          if (name == "title") {
            found = n;
            return false;
          }
          return name != "svg" && name != "script" && name != "style" && name != "template";
        },
        [](xmlNode* /*n*/) {});
  }
  return found;
}

// The charset a document declares in its first 1024 bytes (where the HTML standard's prescan looks), lowercased,
// from <meta charset>, <meta http-equiv content="...; charset=..."> or an XML declaration.
std::optional<std::string> declared_charset(std::string_view html) {
  const std::string head = lowercase(html.substr(0, 1024));
  const auto value_after = [&head](std::size_t pos, std::size_t end) -> std::optional<std::string> {
    while (pos < end && is_space(head[pos])) ++pos;
    if (pos >= end || head[pos] != '=') return std::nullopt;
    ++pos;
    while (pos < end && (is_space(head[pos]) || head[pos] == '"' || head[pos] == '\'')) ++pos;
    std::size_t stop = pos;
    while (stop < end && (std::isalnum(static_cast<unsigned char>(head[stop])) != 0 || head[stop] == '-' ||
                          head[stop] == '_' || head[stop] == '.' || head[stop] == ':')) {
      ++stop;
    }
    if (stop == pos) return std::nullopt;
    return head.substr(pos, stop - pos);
  };
  if (head.rfind("<?xml", 0) == 0) {
    const std::size_t end = std::min(head.find("?>"), head.size());
    const std::size_t at = head.find("encoding", 0);
    if (at < end) {
      if (auto value = value_after(at + 8, end)) return value;
    }
  }
  for (std::size_t meta = head.find("<meta"); meta != std::string::npos; meta = head.find("<meta", meta + 5)) {
    const std::size_t end = std::min(head.find('>', meta), head.size());
    const std::size_t at = head.find("charset", meta);
    if (at < end) {
      if (auto value = value_after(at + 7, end)) return value;
    }
  }
  return std::nullopt;
}

// The encoding to hand libxml2, or nullopt to let it read a UTF-16 byte order mark. As in browsers, a byte order
// mark outranks a declared charset. `declared` tells whether the page named its charset.
std::optional<std::string> html_encoding(std::string_view html, bool& declared_one) {
  declared_one = true;
  if (html.substr(0, kUtf8Bom.size()) == kUtf8Bom) return "UTF-8";
  if (html.size() >= 2 && ((html[0] == '\xFF' && html[1] == '\xFE') || (html[0] == '\xFE' && html[1] == '\xFF'))) {
    return std::nullopt;
  }
  const std::optional<std::string> declared = declared_charset(html);
  declared_one = declared.has_value();
  if (!declared) return "UTF-8";
  const std::string& label = *declared;
  // The HTML standard reads these labels so: a page served as text cannot really be UTF-16, and "latin1" pages
  // are in practice windows-1252 (curly quotes in 0x80-0x9F).
  if (label == "utf-8" || label == "utf8" || label == "unicode-1-1-utf-8" || label.rfind("utf-16", 0) == 0) {
    return "UTF-8";
  }
  if (label == "iso-8859-1" || label == "iso8859-1" || label == "latin1" || label == "l1" || label == "us-ascii" ||
      label == "ascii") {
    return "windows-1252";
  }
  return label;
}

}  // namespace

std::string html_text(std::string_view content, std::string* title, const std::string& source, bool embedded,
                      std::string* warning) {
  if (title != nullptr) title->clear();
  bool declared = true;
  const std::optional<std::string> encoding =
      embedded ? std::optional<std::string>("UTF-8") : html_encoding(content, declared);
  const bool utf8 = encoding && *encoding == "UTF-8";
  std::string_view html = content;
  std::string converted;
  if (utf8) {
    html = strip_bom(content);
    // libxml2 would quietly reread a page with a bad byte as Latin-1. A page that names no charset is read as
    // Windows-1252 (as browsers read such pages); one that claims UTF-8 keeps its text, bad bytes replaced.
    if (const std::size_t bad = tokenizer::unicode::find_invalid_utf8(html); bad != std::string_view::npos) {
      if (embedded) require_utf8(html, source);
      const std::string at = " (byte " + std::to_string(bad + (content.size() - html.size())) + ")";
      if (declared) {
        converted = tokenizer::unicode::replace_invalid_utf8(html);
        if (warning != nullptr)
          *warning = "declares UTF-8 but is not valid UTF-8" + at + ": bad bytes replaced by U+FFFD";
      } else {
        converted = windows1252_to_utf8(html);
        if (warning != nullptr)
          *warning = "not valid UTF-8" + at + " and no charset declared: read as Windows-1252 (Latin-1)";
      }
      html = converted;
    }
  }
  if (trim(html).empty()) return {};
  if (html.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw Error(ErrorCode::kInvalidInput,
                source + ": HTML document too large (" + std::to_string(html.size()) + " bytes)");
  }
  xml::prepare();
  // Without XML_PARSE_HUGE libxml2 stops at nesting depth 256 and silently drops the rest of the page; its
  // parser and the renderer below are iterative, so depth costs no stack.
  constexpr int kParseOptions =
      HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET | XML_PARSE_HUGE;
  const xml::DocPtr doc(htmlReadMemory(html.data(), static_cast<int>(html.size()), nullptr,
                                       encoding ? encoding->c_str() : nullptr, kParseOptions));
  if (!doc) return {};

  std::string first_h1;
  HtmlRenderer renderer(&first_h1);
  for (xmlNode* top = doc->children; top != nullptr; top = top->next) renderer.render(top);
  std::string text = renderer.finish();
  if (title != nullptr) {
    xmlNode* title_element = find_title_element(doc.get());
    *title = title_element != nullptr ? html_subtree_title(title_element) : std::string();
    if (title->empty()) *title = std::move(first_h1);
  }
  return text;
}

namespace {

bool sniff_html(std::string_view head) {
  std::string_view s = strip_bom(head);
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return starts_with_ci(s, "<!doctype html") || starts_with_ci(s, "<html");
}

void extract_html(const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) {
  ExtractedDocument doc;
  doc.key = input.key;
  std::string warning;
  doc.text = html_text(input.bytes, &doc.title, input.key, false, &warning);
  if (!warning.empty()) context.warn(input.key, warning);
  out.push_back(std::move(doc));
}

}  // namespace

const FileFormat kHtmlFormat{
    .name = "html",
    .label = "HTML",
    .extensions = {".html", ".htm", ".xhtml", ".shtml"},
    .sniff = sniff_html,
    .text_input = false,
    .extract = extract_html,
};

std::string html_to_text(std::string_view html, std::string* title) {
  return html_text(html, title, "HTML", false);
}

}  // namespace sieve::search
