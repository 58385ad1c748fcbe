#include "search/formats/xml_util.hpp"

#include <libxml/xmlerror.h>

#include <limits>

#include "search/formats/text_util.hpp"
#include "sieve/error.hpp"

namespace sieve::search::xml {
namespace {

void ignore_error(void* /*context*/, const char* /*format*/, ...) {}

}  // namespace

void prepare() {
  // xmlInitParser is not safe to race; a function-local static runs it once. The error handler is per thread
  // in libxml2, so it is set on every call.
  static const bool initialized = [] {
    xmlInitParser();
    return true;
  }();
  (void)initialized;
  xmlSetGenericErrorFunc(nullptr, ignore_error);
}

std::string attribute(xmlNode* node, const char* local_name) {
  const CharPtr value(xmlGetProp(node, reinterpret_cast<const xmlChar*>(local_name)));
  return std::string(chars(value.get()));
}

std::string text_content(xmlNode* node) {
  std::string out;
  walk(
      node,
      [&out](xmlNode* n) {
        if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) out.append(chars(n->content));
        return n->type == XML_ELEMENT_NODE;
      },
      [](xmlNode* /*n*/) {});
  return out;
}

std::string collapsed_text(xmlNode* node) {
  return text::collapse_whitespace(text_content(node));
}

xmlNode* find(xmlNode* root, std::string_view local_name) {
  if (root == nullptr) return nullptr;
  xmlNode* found = nullptr;
  walk(
      root,
      [&](xmlNode* n) {
        if (found != nullptr || n->type != XML_ELEMENT_NODE) return false;
        if (name(n) == local_name) {
          found = n;
          return false;
        }
        return true;
      },
      [](xmlNode* /*n*/) {});
  return found;
}

DocPtr parse(std::string_view bytes, const std::string& where) {
  prepare();
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw Error(ErrorCode::kInvalidInput, where + ": XML too large (" + std::to_string(bytes.size()) + " bytes)");
  }
  // No Office, OpenDocument or EPUB file declares entities; a file that does is refused rather than trusted
  // with libxml2's limits on expanding them (which XML_PARSE_HUGE relaxes).
  if (bytes.find("<!ENTITY") != std::string_view::npos) {
    throw Error(ErrorCode::kUnsupported, where + ": XML that declares entities (<!ENTITY) is not read");
  }
  // XML_PARSE_HUGE lifts libxml2's depth and text-node limits, which would otherwise drop the rest of a large
  // sheet silently; without XML_PARSE_NOENT, entities stay references and never expand (no "billion laughs").
  constexpr int kOptions = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_HUGE;
  DocPtr doc(xmlReadMemory(bytes.data(), static_cast<int>(bytes.size()), nullptr, nullptr, kOptions));
  if (!doc || xmlDocGetRootElement(doc.get()) == nullptr) {
    const xmlError* error = xmlGetLastError();
    std::string what = error != nullptr && error->message != nullptr ? error->message : "not well-formed";
    while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
    const std::string line = error != nullptr && error->line > 0 ? " (line " + std::to_string(error->line) + ")" : "";
    throw Error(ErrorCode::kParse, where + ": malformed XML: " + what + line);
  }
  return doc;
}

}  // namespace sieve::search::xml
