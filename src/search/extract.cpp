#include "search/extract.hpp"

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <md4c.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "json_depth.hpp"
#include "sieve/error.hpp"
#include "tokenizer/core/unicode.hpp"

namespace sieve::search {
namespace {

using nlohmann::json;

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// --- UTF-8 ------------------------------------------------------------------

// The offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or nullopt when all of `s` is well formed.
std::optional<std::size_t> find_invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c == 0xE0) {
      len = 3;
      lo = 0xA0;
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
      len = 3;
    } else if (c == 0xED) {
      len = 3;
      hi = 0x9F;
    } else if (c == 0xF0) {
      len = 4;
      lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
      len = 4;
    } else if (c == 0xF4) {
      len = 4;
      hi = 0x8F;
    } else {
      return i;
    }
    if (n - i < len) return i;
    const auto c1 = static_cast<unsigned char>(s[i + 1]);
    if (c1 < lo || c1 > hi) return i;
    for (std::size_t k = 2; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return i;
    }
    i += len;
  }
  return std::nullopt;
}

void require_utf8(std::string_view s, const std::string& where, std::size_t base_offset = 0) {
  if (const auto bad = find_invalid_utf8(s)) {
    throw Error(ErrorCode::kInvalidInput, where + ": invalid UTF-8 at byte " + std::to_string(base_offset + *bad));
  }
}

// --- small string helpers ---------------------------------------------------

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

char ascii_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), ascii_lower);
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string collapse_whitespace(std::string_view s) {
  std::string out;
  bool pending_space = false;
  for (const char c : s) {
    if (is_space(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    out += c;
  }
  return out;
}

std::string_view strip_bom(std::string_view s) {
  if (s.substr(0, kUtf8Bom.size()) == kUtf8Bom) s.remove_prefix(kUtf8Bom.size());
  return s;
}

// U+0000 becomes U+FFFD, as CommonMark does: PostgreSQL's text cannot hold it (libpq would end the value
// there and silently drop the rest), and no store should differ from another in what it keeps.
void replace_nul(std::string& s) {
  for (std::size_t at = s.find('\0'); at != std::string::npos; at = s.find('\0', at + 3)) {
    s.replace(at, 1, "\xEF\xBF\xBD");
  }
}

// Metadata names are keys of a table, where two names made equal would collide: one holding U+0000 is an
// error (the caller names it).
void replace_nul(ExtractedDocument& doc, const std::string& where) {
  replace_nul(doc.text);
  replace_nul(doc.title);
  for (auto& [key, value] : doc.metadata) {
    if (key.find('\0') != std::string::npos) {
      throw Error(ErrorCode::kInvalidInput, where + ": a metadata name holds a NUL (\\u0000)");
    }
    replace_nul(value);
  }
}

// --- text assembly ----------------------------------------------------------

// Builds the extracted text. Separators are requested rather than written so that nested blocks and runs of
// whitespace yield one separator, and none at the ends.
class TextBuilder {
 public:
  // Runs of whitespace become one space, as a browser renders normal flow text.
  void add_flowing(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
      if (is_space(s[i])) {
        space_ = true;
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < s.size() && !is_space(s[j])) ++j;
      flush();
      out_.append(s.substr(i, j - i));
      i = j;
    }
  }
  void add_verbatim(std::string_view s) {
    if (s.empty()) return;
    flush();
    out_.append(s);
  }
  void request_space() { space_ = true; }
  // 1: a line break; 2: a blank line between blocks.
  void request_break(int newlines) { newlines_ = std::max(newlines_, newlines); }
  // Unlike block edges, hard breaks add up: two in a row leave a blank line.
  void add_line_break() { newlines_ = std::min(newlines_ + 1, 2); }

  std::string finish() {
    newlines_ = 0;
    space_ = false;
    return std::string(trim(out_));
  }

 private:
  void flush() {
    if (!out_.empty()) {
      if (newlines_ > 0) {
        // Trailing blanks before a break (the end of a <pre> or a code block) would only pad the line.
        while (!out_.empty() && is_space(out_.back())) out_.pop_back();
        if (!out_.empty()) out_.append(static_cast<std::size_t>(newlines_), '\n');
      } else if (space_ && !is_space(out_.back())) {
        out_ += ' ';
      }
    }
    newlines_ = 0;
    space_ = false;
  }

  std::string out_;
  int newlines_ = 0;
  bool space_ = false;
};

// --- HTML -------------------------------------------------------------------

struct XmlDocDeleter {
  void operator()(xmlDoc* doc) const { xmlFreeDoc(doc); }
};
using XmlDocPtr = std::unique_ptr<xmlDoc, XmlDocDeleter>;

// libxml2 reports recovered errors through this handler even with HTML_PARSE_NOERROR (encoding problems, for
// one); messy web pages are the normal case here, not something to print.
void ignore_xml_error(void* /*context*/, const char* /*format*/, ...) {}

void prepare_libxml() {
  // xmlInitParser is not safe to race; a function-local static runs it once. The error handler is per thread
  // in libxml2, so it is set on every call.
  static const bool initialized = [] {
    xmlInitParser();
    return true;
  }();
  (void)initialized;
  xmlSetGenericErrorFunc(nullptr, ignore_xml_error);
}

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

std::string_view xml_chars(const xmlChar* s) {
  return s == nullptr ? std::string_view() : std::string_view(reinterpret_cast<const char*>(s));
}

std::string_view element_name(const xmlNode* node) {
  return xml_chars(node->name);
}

// Calls enter(node) on `root` and every node below it in document order, descending where enter returns true,
// and leave(node) once a node's subtree is done. Iterative, so that the stack does not limit nesting depth
// whatever limit the libxml2 in use sets (2.9 stops at 256 levels, later versions allow more).
template <typename Enter, typename Leave>
void walk_subtree(xmlNode* root, Enter&& enter, Leave&& leave) {
  xmlNode* node = root;
  while (true) {
    if (enter(node) && node->children != nullptr) {
      node = node->children;
      continue;
    }
    while (true) {
      leave(node);
      if (node == root) return;
      if (node->next != nullptr) {
        node = node->next;
        break;
      }
      node = node->parent;
    }
  }
}

std::string html_subtree_title(xmlNode* node);

class HtmlRenderer {
 public:
  explicit HtmlRenderer(std::string* first_h1) : first_h1_(first_h1) {}

  void render(xmlNode* root) {
    walk_subtree(
        root, [this](xmlNode* n) { return enter(n); }, [this](xmlNode* n) { leave(n); });
  }
  std::string finish() { return out_.finish(); }

 private:
  bool enter(xmlNode* node) {
    if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE) {
      std::string_view text = xml_chars(node->content);
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
    const std::string_view name = element_name(node);
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
        const XmlCharPtr alt(xmlGetProp(node, reinterpret_cast<const xmlChar*>("alt")));
        out_.request_space();
        out_.add_flowing(xml_chars(alt.get()));
        out_.request_space();
        return false;
      }
    }
    return true;
  }

  void leave(xmlNode* node) {
    if (node->type != XML_ELEMENT_NODE) return;
    switch (html_kind(element_name(node))) {
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

  struct XmlCharDeleter {
    void operator()(xmlChar* s) const { xmlFree(s); }
  };
  using XmlCharPtr = std::unique_ptr<xmlChar, XmlCharDeleter>;

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
    walk_subtree(
        top,
        [&found](xmlNode* n) {
          if (found != nullptr || n->type != XML_ELEMENT_NODE) return false;
          const std::string_view name = element_name(n);
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
// mark outranks a declared charset.
std::optional<std::string> html_encoding(std::string_view html) {
  if (html.substr(0, kUtf8Bom.size()) == kUtf8Bom) return "UTF-8";
  if (html.size() >= 2 && ((html[0] == '\xFF' && html[1] == '\xFE') || (html[0] == '\xFE' && html[1] == '\xFF'))) {
    return std::nullopt;
  }
  const std::optional<std::string> declared = declared_charset(html);
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

// `embedded`: HTML inside a Markdown file, whose bytes are the file's UTF-8 whatever a <meta> in it claims.
std::string html_text(std::string_view content, std::string* title, const std::string& source, bool embedded) {
  if (title != nullptr) title->clear();
  const std::optional<std::string> encoding = embedded ? std::optional<std::string>("UTF-8") : html_encoding(content);
  const bool utf8 = encoding && *encoding == "UTF-8";
  std::string_view html = content;
  if (utf8) {
    // libxml2 would quietly reread a page with a bad byte as Latin-1; a UTF-8 page with one is an input error.
    require_utf8(content, source);
    html = strip_bom(content);
  }
  if (trim(html).empty()) return {};
  if (html.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw Error(ErrorCode::kInvalidInput,
                source + ": HTML document too large (" + std::to_string(html.size()) + " bytes)");
  }
  prepare_libxml();
  // Without XML_PARSE_HUGE libxml2 stops at nesting depth 256 and silently drops the rest of the page; its
  // parser and the renderer below are iterative, so depth costs no stack.
  constexpr int kParseOptions =
      HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET | XML_PARSE_HUGE;
  const XmlDocPtr doc(htmlReadMemory(html.data(), static_cast<int>(html.size()), nullptr,
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

// --- Markdown ---------------------------------------------------------------

using MetadataMap = std::map<std::string, std::string>;

std::string_view unquote(std::string_view value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
    return value.substr(1, value.size() - 2);
  }
  return value;
}

struct Line {
  std::string_view text;  // without the line ending
  std::size_t next = 0;   // offset of the following line
};

Line line_at(std::string_view s, std::size_t pos) {
  const std::size_t nl = s.find('\n', pos);
  const std::size_t end = nl == std::string_view::npos ? s.size() : nl;
  std::string_view text = s.substr(pos, end - pos);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return {text, nl == std::string_view::npos ? s.size() : nl + 1};
}

bool is_fence(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  return line == "---";
}

// Splits off YAML-style front matter and reads its flat `key: value` lines. Nested YAML (indented lines, lists) is
// tolerated and skipped; any other line means the leading `---` was a thematic break, not front matter, and the
// document is left whole so that no prose is lost.
std::string_view split_front_matter(std::string_view markdown, MetadataMap& metadata) {
  const Line first = line_at(markdown, 0);
  if (!is_fence(first.text)) return markdown;
  MetadataMap found;
  for (std::size_t pos = first.next; pos < markdown.size();) {
    const Line line = line_at(markdown, pos);
    pos = line.next;
    if (is_fence(line.text)) {
      metadata = std::move(found);
      return markdown.substr(pos);
    }
    const std::string_view trimmed = trim(line.text);
    if (trimmed.empty() || trimmed.front() == '#' || is_space(line.text.front()) || trimmed.rfind("- ", 0) == 0 ||
        trimmed == "-") {
      continue;
    }
    const std::size_t colon = line.text.find(':');
    if (colon == std::string_view::npos || colon == 0) return markdown;
    const std::string_view key = trim(line.text.substr(0, colon));
    const std::string_view value = trim(line.text.substr(colon + 1));
    if (key.empty() || std::any_of(key.begin(), key.end(), [](char c) { return c == '"' || c == '\'' || c == '['; })) {
      return markdown;
    }
    // An empty value opens a nested list or mapping, which this flat reader does not represent.
    if (!value.empty()) found[std::string(key)] = std::string(unquote(value));
  }
  return markdown;
}

// HTML5's named character references, sorted by name (tools/gen_html_entities.py).
struct HtmlEntity {
  std::string_view name;
  std::string_view text;
};
constexpr HtmlEntity kHtmlEntities[] = {
#include "html_entities.inc"
};

// What an entity md4c reports (`&name;`, `&#N;`, `&#xN;`) stands for, as
// CommonMark decodes it: a name HTML5 does not know stays as it is written;
// a number that is no character (0, a surrogate, beyond U+10FFFF) is U+FFFD.
void append_entity(std::string& out, std::string_view entity) {
  if (entity.size() < 3 || entity.front() != '&' || entity.back() != ';') {
    out.append(entity);
    return;
  }
  const std::string_view body = entity.substr(1, entity.size() - 2);
  if (body.front() == '#') {
    const bool hex = body.size() > 1 && (body[1] == 'x' || body[1] == 'X');
    const std::string_view digits = body.substr(hex ? 2 : 1);
    std::uint32_t cp = 0;
    bool valid = !digits.empty() && digits.size() <= 8;
    for (const char c : digits) {
      const int digit = (c >= '0' && c <= '9')          ? c - '0'
                        : hex && (c >= 'a' && c <= 'f') ? c - 'a' + 10
                        : hex && (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                        : -1;
      if (digit < 0) valid = false;
      if (!valid) break;
      cp = cp * (hex ? 16 : 10) + static_cast<std::uint32_t>(digit);
    }
    if (!valid) {
      out.append(entity);
      return;
    }
    if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = 0xFFFD;
    tokenizer::unicode::append_utf8(out, static_cast<char32_t>(cp));
    return;
  }
  const auto* end = std::end(kHtmlEntities);
  const auto* found = std::lower_bound(std::begin(kHtmlEntities), end, body,
                                       [](const HtmlEntity& e, std::string_view name) { return e.name < name; });
  out.append(found != end && found->name == body ? found->text : entity);
}

// Builds the text of a Markdown document from md4c's events, as the
// document renders: blocks on lines of their own, a blank line between
// paragraphs (a line break between a tight list's items), raw HTML blocks
// through the HTML extractor, inline tags dropped but for <br>.
class MarkdownRenderer {
 public:
  explicit MarkdownRenderer(const std::string& source) : source_(source) {}

  // Parses `markdown` (md4c, in time linear in its length) and returns its text.
  std::string render(std::string_view markdown) {
    if (markdown.size() > std::numeric_limits<MD_SIZE>::max()) {
      throw Error(ErrorCode::kInvalidInput,
                  source_ + ": Markdown document too large (" + std::to_string(markdown.size()) + " bytes)");
    }
    MD_PARSER parser{};
    parser.abi_version = 0;
    parser.flags = MD_DIALECT_COMMONMARK;
    parser.enter_block = [](MD_BLOCKTYPE type, void* detail, void* self) {
      return static_cast<MarkdownRenderer*>(self)->guarded([&](MarkdownRenderer& r) { r.block(type, detail, true); });
    };
    parser.leave_block = [](MD_BLOCKTYPE type, void* detail, void* self) {
      return static_cast<MarkdownRenderer*>(self)->guarded([&](MarkdownRenderer& r) { r.block(type, detail, false); });
    };
    parser.enter_span = [](MD_SPANTYPE /*type*/, void* /*detail*/, void* /*self*/) { return 0; };
    parser.leave_span = [](MD_SPANTYPE /*type*/, void* /*detail*/, void* /*self*/) { return 0; };
    parser.text = [](MD_TEXTTYPE type, const MD_CHAR* text, MD_SIZE size, void* self) {
      return static_cast<MarkdownRenderer*>(self)->guarded(
          [&](MarkdownRenderer& r) { r.text(type, std::string_view(text, size)); });
    };
    const int result = md_parse(markdown.data(), static_cast<MD_SIZE>(markdown.size()), &parser, this);
    if (failure_) std::rethrow_exception(failure_);
    if (result != 0) throw Error(ErrorCode::kInvalidInput, source_ + ": not enough memory to parse the Markdown");
    return out_.finish();
  }

  // The first level-1 heading's text, on one line.
  [[nodiscard]] const std::string& heading() const { return heading_; }

 private:
  // No exception may cross md4c's C frames: the first one stops the parse and is thrown once it returns.
  template <typename F>
  int guarded(F&& f) {
    try {
      f(*this);
      return 0;
    } catch (...) {
      failure_ = std::current_exception();
      return 1;
    }
  }

  void block(MD_BLOCKTYPE type, void* detail, bool entering) {
    switch (type) {
      case MD_BLOCK_H:
        out_.request_break(2);
        if (entering) {
          in_heading_ = heading_.empty() && static_cast<const MD_BLOCK_H_DETAIL*>(detail)->level == 1;
        } else if (in_heading_) {
          heading_ = collapse_whitespace(heading_text_);
          heading_text_.clear();
          in_heading_ = false;
        }
        break;
      // md4c reports no paragraphs inside a tight list's items: their text is the item's.
      case MD_BLOCK_P: out_.request_break(2); break;
      case MD_BLOCK_LI:
        out_.request_break(1);
        item_depth_ += entering ? 1 : -1;
        break;
      case MD_BLOCK_UL:
      case MD_BLOCK_OL:
        // A list inside another list's item is a line, not a paragraph, away from its neighbours.
        out_.request_break(item_depth_ > 0 ? 1 : 2);
        break;
      case MD_BLOCK_CODE:
      case MD_BLOCK_QUOTE:
      case MD_BLOCK_HR: out_.request_break(2); break;
      case MD_BLOCK_HTML:
        out_.request_break(2);
        collecting_html_ = entering;
        if (!entering) {
          out_.add_verbatim(html_text(html_block_, nullptr, source_, true));
          html_block_.clear();
          out_.request_break(2);
        }
        break;
      default: break;
    }
  }

  void text(MD_TEXTTYPE type, std::string_view text) {
    std::string decoded;
    switch (type) {
      case MD_TEXT_NORMAL:
      case MD_TEXT_CODE:
      case MD_TEXT_LATEXMATH: break;
      case MD_TEXT_ENTITY:
        append_entity(decoded, text);
        text = decoded;
        break;
      case MD_TEXT_NULLCHAR: text = "\xEF\xBF\xBD"; break;
      case MD_TEXT_SOFTBR:
        out_.request_space();
        if (in_heading_) heading_text_ += ' ';
        return;
      case MD_TEXT_BR:
        out_.add_line_break();
        if (in_heading_) heading_text_ += ' ';
        return;
      case MD_TEXT_HTML:
        if (collecting_html_) {
          html_block_.append(text);
        } else if (lowercase(text.substr(0, 3)) == "<br") {
          // Tags around text carry no words; only a line break changes how the text reads.
          out_.request_break(1);
        }
        return;
    }
    out_.add_verbatim(text);
    if (in_heading_) heading_text_.append(text);
  }

  const std::string& source_;
  TextBuilder out_;
  std::string heading_;
  std::string heading_text_;
  bool in_heading_ = false;
  int item_depth_ = 0;
  // Raw HTML of the block being read (not a tag inside a paragraph), rendered when it ends.
  std::string html_block_;
  bool collecting_html_ = false;
  std::exception_ptr failure_;
};

std::string markdown_text(std::string_view content, std::string* title, MetadataMap* metadata,
                          const std::string& source) {
  require_utf8(content, source);
  MetadataMap front;
  const std::string_view markdown = split_front_matter(strip_bom(content), front);
  MarkdownRenderer renderer(source);
  std::string text = renderer.render(markdown);
  if (title != nullptr) {
    const auto it = front.find("title");
    *title = it != front.end() && !it->second.empty() ? it->second : renderer.heading();
  }
  front.erase("title");
  if (metadata != nullptr) *metadata = std::move(front);
  return text;
}

// --- JSONL ------------------------------------------------------------------

[[noreturn]] void jsonl_error(const std::string& source, std::size_t line, const std::string& what) {
  throw Error(ErrorCode::kParse, source + " line " + std::to_string(line) + ": " + what);
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; the tag means nothing to a user.
std::string parser_message(const json::exception& e) {
  std::string_view what = e.what();
  if (!what.empty() && what.front() == '[') {
    const std::size_t close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  return std::string(what);
}

std::vector<ExtractedDocument> jsonl_documents(std::string_view content, const std::string& source) {
  std::vector<ExtractedDocument> documents;
  std::map<std::string, std::size_t> id_lines;
  const std::size_t bom = strip_bom(content).size() == content.size() ? 0 : kUtf8Bom.size();
  std::size_t line_number = 0;
  for (std::size_t pos = bom; pos < content.size();) {
    const Line line = line_at(content, pos);
    const std::size_t line_start = pos;
    pos = line.next;
    ++line_number;
    const std::string where = source + " line " + std::to_string(line_number);
    if (const auto bad = find_invalid_utf8(line.text)) {
      throw Error(ErrorCode::kInvalidInput, where + ": invalid UTF-8 at byte " + std::to_string(line_start + *bad));
    }
    if (trim(line.text).empty()) continue;

    json record;
    try {
      // Nested no deeper than tokenizer.json may be: a record's metadata is
      // written out again (dump), which recurses.
      record = json::parse(line.text, json_depth_limit(where));
    } catch (const json::exception& e) {
      // A syntax error, or a number beyond a double's range (1e309).
      jsonl_error(source, line_number, parser_message(e));
    }
    if (!record.is_object()) jsonl_error(source, line_number, "not a JSON object");

    ExtractedDocument doc;
    const auto id = record.find("id");
    if (id == record.end()) jsonl_error(source, line_number, "missing \"id\"");
    if (id->is_string()) {
      doc.key = id->get<std::string>();
    } else if (id->is_number_integer()) {
      doc.key = id->dump();
    } else {
      jsonl_error(source, line_number, "\"id\" must be a string or integer");
    }
    if (doc.key.empty()) jsonl_error(source, line_number, "\"id\" is empty");
    if (doc.key.find('\0') != std::string::npos) jsonl_error(source, line_number, "\"id\" holds a NUL (\\u0000)");

    const auto text = record.find("text");
    if (text == record.end()) jsonl_error(source, line_number, "missing \"text\"");
    if (!text->is_string()) jsonl_error(source, line_number, "\"text\" must be a string");
    doc.text = text->get<std::string>();

    const auto title = record.find("title");
    if (title != record.end() && !title->is_null()) {
      if (!title->is_string()) jsonl_error(source, line_number, "\"title\" must be a string");
      doc.title = title->get<std::string>();
    }

    // json objects iterate in key order, which is the order metadata is kept in.
    for (const auto& [key, value] : record.items()) {
      if (key == "id" || key == "text" || key == "title" || value.is_null()) continue;
      doc.metadata.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
    }

    const auto [previous, inserted] = id_lines.emplace(doc.key, line_number);
    if (!inserted) {
      jsonl_error(
          source, line_number,
          "duplicate \"id\" " + json(doc.key).dump() + " (first on line " + std::to_string(previous->second) + ")");
    }
    // Escapes such as \u0000 decode to valid UTF-8, so this only guards against a parser that lets through a
    // lone surrogate.
    require_utf8(doc.text, where + " \"text\"");
    replace_nul(doc, where);
    documents.push_back(std::move(doc));
  }
  return documents;
}

}  // namespace

std::optional<SourceFormat> format_for_path(const std::filesystem::path& path) {
  const std::string ext = lowercase(path.extension().string());
  if (ext == ".txt" || ext == ".text") return SourceFormat::kText;
  if (ext == ".md" || ext == ".markdown") return SourceFormat::kMarkdown;
  if (ext == ".html" || ext == ".htm" || ext == ".xhtml") return SourceFormat::kHtml;
  if (ext == ".jsonl" || ext == ".ndjson") return SourceFormat::kJsonl;
  return std::nullopt;
}

std::string html_to_text(std::string_view html, std::string* title) {
  return html_text(html, title, "HTML", false);
}

std::string markdown_to_text(std::string_view markdown, std::string* title) {
  return markdown_text(markdown, title, nullptr, "Markdown");
}

std::vector<ExtractedDocument> extract_documents(std::string_view content, SourceFormat format,
                                                 const std::string& source_key) {
  if (format == SourceFormat::kJsonl) return jsonl_documents(content, source_key);

  ExtractedDocument doc;
  doc.key = source_key;
  switch (format) {
    case SourceFormat::kText:
      require_utf8(content, source_key);
      doc.text = std::string(strip_bom(content));
      break;
    case SourceFormat::kMarkdown: {
      MetadataMap metadata;
      doc.text = markdown_text(content, &doc.title, &metadata, source_key);
      doc.metadata.assign(metadata.begin(), metadata.end());
      break;
    }
    case SourceFormat::kHtml: doc.text = html_text(content, &doc.title, source_key, false); break;
    case SourceFormat::kJsonl: break;
  }
  // The input was checked where it was UTF-8; a page in a declared legacy charset is only checked after libxml2
  // has converted it.
  require_utf8(doc.text, source_key + " (extracted text)");
  require_utf8(doc.title, source_key + " (extracted title)");
  replace_nul(doc, source_key);
  std::vector<ExtractedDocument> documents;
  documents.push_back(std::move(doc));
  return documents;
}

}  // namespace sieve::search
