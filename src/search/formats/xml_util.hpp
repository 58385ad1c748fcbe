#pragma once

// libxml2 for the readers of XML-based formats (HTML, Office, OpenDocument,
// EPUB): owners for its objects, a walk that needs no stack, and a parser
// set up for files nobody vetted.

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <memory>
#include <string>
#include <string_view>

namespace sieve::search::xml {

struct DocDeleter {
  void operator()(xmlDoc* doc) const { xmlFreeDoc(doc); }
};
using DocPtr = std::unique_ptr<xmlDoc, DocDeleter>;

struct CharDeleter {
  void operator()(xmlChar* s) const { xmlFree(s); }
};
using CharPtr = std::unique_ptr<xmlChar, CharDeleter>;

// Initializes libxml2 once per process and silences its error printing on this thread (messy input is the
// normal case here, not something to print).
void prepare();

inline std::string_view chars(const xmlChar* s) {
  return s == nullptr ? std::string_view() : std::string_view(reinterpret_cast<const char*>(s));
}
// The element's name without its namespace prefix.
inline std::string_view name(const xmlNode* node) {
  return chars(node->name);
}
// An attribute by its local name, whatever its namespace; "" when absent.
std::string attribute(xmlNode* node, const char* local_name);
// All text below `node`, in document order, as it is.
std::string text_content(xmlNode* node);
// The same with runs of whitespace made one space, and none at either end.
std::string collapsed_text(xmlNode* node);
// The first element below `root` (or root itself) with this local name, depth first; nullptr when none.
xmlNode* find(xmlNode* root, std::string_view local_name);
// Calls visit(local_name, text) for each child element of `parent` (which may be null) whose text, whitespace
// collapsed, is not empty: a metadata record such as Dublin Core's.
template <typename Visit>
void each_child_text(xmlNode* parent, Visit&& visit) {
  for (xmlNode* n = parent != nullptr ? parent->children : nullptr; n != nullptr; n = n->next) {
    if (n->type != XML_ELEMENT_NODE) continue;
    std::string value = collapsed_text(n);
    if (!value.empty()) visit(name(n), std::move(value));
  }
}

// Parses an XML document (a member of an Office, OpenDocument or EPUB file).
// No network, no DTD loading, no entity expansion; malformed XML throws
// sieve::Error (kParse) naming `where`.
DocPtr parse(std::string_view bytes, const std::string& where);

// Calls enter(node) on `root` and every node below it in document order,
// descending where enter returns true, and leave(node) once a node's subtree
// is done. Iterative, so the stack does not limit nesting depth.
template <typename Enter, typename Leave>
void walk(xmlNode* root, Enter&& enter, Leave&& leave) {
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

}  // namespace sieve::search::xml
