// EPUB books (.epub): the package document's metadata, then the chapters in reading order (the spine), each an
// XHTML document read as HTML, with a section per chapter. Spine items marked linear="no" (notes, answers,
// pop-ups that a reader reaches by link) are read too, after the others.
#include <set>

#include "search/formats/archive_reader.hpp"
#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/html.hpp"
#include "search/formats/ooxml.hpp"
#include "search/formats/text_util.hpp"
#include "search/formats/xml_util.hpp"
#include "sieve/error.hpp"

namespace sieve::search {
namespace {
namespace epub_reader {

constexpr std::string_view kContainer = "META-INF/container.xml";
constexpr std::string_view kWhat = "an EPUB file";

// The package document (the OPF) that META-INF/container.xml names.
std::string package_path(const ooxml::Parts& parts) {
  const xml::DocPtr container = ooxml::parse_required(parts, std::string(kContainer), kWhat);
  std::string path;
  xml::walk(
      xmlDocGetRootElement(container.get()),
      [&path](xmlNode* n) {
        if (n->type != XML_ELEMENT_NODE || !path.empty()) return false;
        if (xml::name(n) != "rootfile") return true;
        // Other renditions (a PDF, say) can be listed; the package document is the one an EPUB reader opens.
        const std::string media_type = xml::attribute(n, "media-type");
        if (media_type.empty() || media_type == "application/oebps-package+xml") {
          path = ooxml::resolve("", xml::attribute(n, "full-path"));
        }
        return false;
      },
      [](xmlNode* /*n*/) {});
  if (path.empty()) {
    throw Error(ErrorCode::kParse, "not " + std::string(kWhat) + ": " + std::string(kContainer) +
                                       " names no package document (<rootfile full-path=...>)");
  }
  return path;
}

// dc:title → the title; dc:creator (all of them) → "author", dc:language → "language", dc:date → "created",
// dc:publisher → "publisher".
void read_metadata(xmlNode* metadata, ExtractedDocument& doc) {
  static const std::map<std::string_view, std::string_view> kNames = {
      {"language", "language"}, {"date", "created"}, {"publisher", "publisher"}};
  std::string authors;
  xml::each_child_text(metadata, [&](std::string_view name, std::string value) {
    if (name == "title") {
      if (doc.title.empty()) doc.title = std::move(value);
    } else if (name == "creator") {
      authors += (authors.empty() ? "" : "; ") + value;
    } else if (const auto it = kNames.find(name); it != kNames.end()) {
      // The first of each wins (finish_document keeps it).
      doc.metadata.emplace_back(std::string(it->second), std::move(value));
    }
  });
  if (!authors.empty()) doc.metadata.emplace_back("author", std::move(authors));
}

struct Item {
  std::string path;
  std::string media_type;
};

// The manifest's items by id, their hrefs resolved against the package document's folder.
std::map<std::string, Item> manifest(xmlNode* package, const std::string& folder) {
  std::map<std::string, Item> items;
  xmlNode* list = ooxml::child(package, "manifest");
  for (xmlNode* n = list != nullptr ? list->children : nullptr; n != nullptr; n = n->next) {
    if (n->type != XML_ELEMENT_NODE || xml::name(n) != "item") continue;
    items.emplace(xml::attribute(n, "id"),
                  Item{ooxml::percent_decode(ooxml::resolve(folder, xml::attribute(n, "href"))),
                       xml::attribute(n, "media-type")});
  }
  return items;
}

// The spine's items in reading order, those marked linear="no" after the rest; each once.
std::vector<Item> reading_order(xmlNode* package, const std::map<std::string, Item>& items) {
  std::vector<Item> linear;
  std::vector<Item> auxiliary;
  std::set<std::string> seen;
  xmlNode* spine = ooxml::child(package, "spine");
  for (xmlNode* n = spine != nullptr ? spine->children : nullptr; n != nullptr; n = n->next) {
    if (n->type != XML_ELEMENT_NODE || xml::name(n) != "itemref") continue;
    const auto it = items.find(xml::attribute(n, "idref"));
    if (it == items.end() || !seen.insert(it->second.path).second) continue;
    (xml::attribute(n, "linear") == "no" ? auxiliary : linear).push_back(it->second);
  }
  linear.insert(linear.end(), auxiliary.begin(), auxiliary.end());
  return linear;
}

// The members META-INF/encryption.xml lists: encrypted, by DRM, or (fonts) obfuscated.
std::set<std::string> encrypted_members(const ooxml::Parts& parts, ExtractContext& context, const std::string& key) {
  std::set<std::string> members;
  const xml::DocPtr encryption = ooxml::parse_optional(parts, "META-INF/encryption.xml", context, key);
  if (!encryption) return members;
  xml::walk(
      xmlDocGetRootElement(encryption.get()),
      [&members](xmlNode* n) {
        if (n->type != XML_ELEMENT_NODE) return false;
        if (xml::name(n) != "CipherReference") return true;
        members.insert(ooxml::percent_decode(ooxml::resolve("", xml::attribute(n, "URI"))));
        return false;
      },
      [](xmlNode* /*n*/) {});
  return members;
}

// Whether a spine item is a document to read (XHTML, or HTML in older books), not an image or SVG page.
bool is_html(const Item& item) {
  return item.media_type.empty() || item.media_type.find("html") != std::string::npos;
}

void extract(const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) {
  const ooxml::Parts parts = archive::read_all(input.bytes, context, input.key);
  const std::string opf_path = package_path(parts);
  const xml::DocPtr opf = ooxml::parse_required(parts, opf_path, kWhat);
  xmlNode* package = xmlDocGetRootElement(opf.get());

  ExtractedDocument doc;
  doc.key = input.key;
  read_metadata(ooxml::child(package, "metadata"), doc);
  const std::vector<Item> chapters = reading_order(package, manifest(package, ooxml::folder_of(opf_path)));
  const std::set<std::string> encrypted = encrypted_members(parts, context, input.key);

  std::size_t read = 0;
  std::size_t locked = 0;
  std::string first_title;
  for (const Item& item : chapters) {
    if (!is_html(item)) continue;
    if (encrypted.contains(item.path)) {
      ++locked;
      context.fail(input.key, item.path + ": encrypted (DRM): not read");
      continue;
    }
    const std::string* bytes = ooxml::find_part(parts, item.path);
    if (bytes == nullptr) {
      context.fail(input.key, item.path + ": in the spine but missing");
      continue;
    }
    std::string title;
    std::string warning;
    std::string text;
    try {
      text = html_text(*bytes, &title, item.path, false, &warning);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kRuntime) throw;
      context.fail(input.key, e.what());
      continue;
    }
    if (!warning.empty()) context.warn(input.key, item.path + ": " + warning);
    if (text.empty()) continue;
    ++read;
    if (first_title.empty()) first_title = title;
    if (!doc.text.empty()) doc.text += "\n\n";
    // Chapters often repeat the book's title as theirs: then it says nothing of the chapter.
    std::string label = "chapter " + std::to_string(read);
    if (!title.empty() && title != doc.title) label += ": " + title;
    doc.sections.push_back({doc.text.size(), std::move(label)});
    doc.text += text;
  }
  if (read == 0 && locked > 0) throw Error(ErrorCode::kUnsupported, "encrypted (DRM-protected): not read");
  if (doc.title.empty()) doc.title = std::move(first_title);
  out.push_back(std::move(doc));
}

bool sniff(std::string_view head) {
  return ooxml::stored_mimetype(head) == "application/epub+zip";
}

}  // namespace epub_reader
}  // namespace

const FileFormat kEpubFormat{
    .name = "epub",
    .label = "EPUB book",
    .extensions = {".epub"},
    .sniff = epub_reader::sniff,
    .text_input = false,
    .binary = true,
    .extract = epub_reader::extract,
};

}  // namespace sieve::search
