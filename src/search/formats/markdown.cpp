// Markdown (.md, .markdown): CommonMark through md4c, front matter as metadata.
#include <md4c.h>

#include <algorithm>
#include <exception>
#include <iterator>
#include <limits>
#include <map>

#include "search/extract.hpp"
#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/html.hpp"
#include "search/formats/text_util.hpp"
#include "sieve/error.hpp"
#include "tokenizer/core/unicode.hpp"

namespace sieve::search {

using MetadataMap = std::map<std::string, std::string>;
std::string markdown_text(std::string_view content, std::string* title, MetadataMap* metadata,
                          const std::string& source);

namespace {

using namespace text;

std::string_view unquote(std::string_view value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
    return value.substr(1, value.size() - 2);
  }
  return value;
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

}  // namespace

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

namespace {

void extract_markdown(const ExtractInput& input, ExtractContext& /*context*/, std::vector<ExtractedDocument>& out) {
  ExtractedDocument doc;
  doc.key = input.key;
  MetadataMap metadata;
  doc.text = markdown_text(input.bytes, &doc.title, &metadata, input.key);
  doc.metadata.assign(metadata.begin(), metadata.end());
  out.push_back(std::move(doc));
}

}  // namespace

const FileFormat kMarkdownFormat{
    .name = "markdown",
    .label = "Markdown",
    .extensions = {".md", ".markdown", ".mdown", ".mkd"},
    .sniff = nullptr,
    .text_input = true,
    .binary = false,
    .extract = extract_markdown,
};

std::string markdown_to_text(std::string_view markdown, std::string* title) {
  return markdown_text(markdown, title, nullptr, "Markdown");
}

}  // namespace sieve::search
