// Office Open XML packages (the ZIP files of Word, Excel and PowerPoint), and what OpenDocument and EPUB files
// share with them: parts found by path, references between parts, and the signatures of their first bytes.
#include "search/formats/ooxml.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "search/formats/text_util.hpp"
#include "sieve/error.hpp"

namespace sieve::search::ooxml {
namespace {
namespace package_reader {

constexpr std::string_view kLocalHeader("PK\x03\x04", 4);
constexpr std::size_t kLocalHeaderSize = 30;  // fixed fields before the member's name

std::size_t le16(std::string_view s, std::size_t at) {
  return static_cast<std::size_t>(static_cast<unsigned char>(s[at])) |
         static_cast<std::size_t>(static_cast<unsigned char>(s[at + 1])) << 8;
}

std::size_t le32(std::string_view s, std::size_t at) {
  return le16(s, at) | le16(s, at + 2) << 16;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace package_reader
}  // namespace

bool sniff_package(std::string_view head, std::string_view folder) {
  if (!head.starts_with(package_reader::kLocalHeader)) return false;
  bool package = false;
  bool has_folder = false;
  bool first = true;
  // Headers are looked for rather than walked from one to the next: a writer that streams (a data descriptor
  // after each member) leaves the sizes that the walk needs at zero.
  for (std::size_t at = 0; (at = head.find(package_reader::kLocalHeader, at)) != std::string_view::npos;
       at += package_reader::kLocalHeader.size()) {
    if (at + package_reader::kLocalHeaderSize > head.size()) break;
    const std::size_t length = package_reader::le16(head, at + 26);
    if (at + package_reader::kLocalHeaderSize + length > head.size()) break;
    const std::string_view name = head.substr(at + package_reader::kLocalHeaderSize, length);
    // Microsoft Office writes [Content_Types].xml first, LibreOffice _rels/.rels (and [Content_Types].xml last);
    // some writers start with docProps/ or customXml/, which file(1)'s magic accepts as well.
    if (name == "[Content_Types].xml" || name == "_rels/.rels" ||
        (first && (name.starts_with("docProps/") || name.starts_with("customXml/")))) {
      package = true;
    }
    if (name.size() > folder.size() && name.starts_with(folder)) has_folder = true;
    first = false;
  }
  return package && has_folder;
}

std::string_view stored_mimetype(std::string_view head) {
  if (head.size() < package_reader::kLocalHeaderSize || !head.starts_with(package_reader::kLocalHeader)) return {};
  const std::size_t method = package_reader::le16(head, 8);
  const std::size_t name_length = package_reader::le16(head, 26);
  const std::size_t extra_length = package_reader::le16(head, 28);
  if (method != 0 || head.substr(package_reader::kLocalHeaderSize, name_length) != "mimetype") return {};
  // The formats forbid an extra field here, but some writers (libarchive's among them) add one.
  const std::size_t start = package_reader::kLocalHeaderSize + name_length + extra_length;
  if (start >= head.size()) return {};
  std::string_view content = head.substr(start);
  std::size_t size = package_reader::le32(head, 22);
  if (size == 0) {
    // Sizes in a data descriptor after the data: the content ends where that or the next member starts.
    size = std::min(content.find(std::string_view("PK\x07\x08", 4)), content.find(package_reader::kLocalHeader));
  }
  constexpr std::size_t kLongestMediaType = 128;
  return text::trim(content.substr(0, std::min(size, kLongestMediaType)));
}

void refuse_compound_file(std::string_view bytes) {
  if (bytes.starts_with(std::string_view("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1", 8))) {
    throw Error(ErrorCode::kUnsupported,
                "an OLE compound file, not a ZIP package: a password-protected (encrypted) document, or one in the "
                "binary format of Office 97-2003: not read");
  }
}

std::string folder_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash + 1));
}

std::string resolve(std::string_view folder, std::string_view reference) {
  reference = reference.substr(0, reference.find('#'));
  // "http://...", "mailto:...", "file:///...": not a part of the package.
  const std::size_t colon = reference.find(':');
  if (colon != std::string_view::npos && colon < reference.find('/')) return {};
  std::string joined;
  if (reference.starts_with('/')) {
    joined = reference.substr(1);
  } else {
    joined = std::string(folder) + std::string(reference);
  }
  std::vector<std::string_view> segments;
  const std::string_view all(joined);
  std::size_t start = 0;
  while (start <= all.size()) {
    const std::size_t end = std::min(all.find('/', start), all.size());
    const std::string_view segment = all.substr(start, end - start);
    start = end + 1;
    if (segment.empty() || segment == ".") continue;
    // Above the root stays at the root, as for URLs.
    if (segment == "..") {
      if (!segments.empty()) segments.pop_back();
      continue;
    }
    segments.push_back(segment);
  }
  std::string path;
  for (const std::string_view segment : segments) {
    if (!path.empty()) path += '/';
    path.append(segment);
  }
  return path;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && package_reader::hex_value(s[i + 1]) >= 0 &&
        package_reader::hex_value(s[i + 2]) >= 0) {
      out += static_cast<char>(package_reader::hex_value(s[i + 1]) * 16 + package_reader::hex_value(s[i + 2]));
      i += 2;
      continue;
    }
    out += s[i];
  }
  return out;
}

const std::string* find_part(const Parts& parts, const std::string& path) {
  if (path.empty()) return nullptr;
  if (const auto it = parts.find(path); it != parts.end()) return &it->second;
  const std::string decoded = percent_decode(path);
  if (decoded == path) return nullptr;
  const auto it = parts.find(decoded);
  return it == parts.end() ? nullptr : &it->second;
}

xml::DocPtr parse_required(const Parts& parts, const std::string& path, std::string_view what) {
  const std::string* bytes = find_part(parts, path);
  if (bytes == nullptr) throw Error(ErrorCode::kParse, "not " + std::string(what) + ": " + path + " is missing");
  return xml::parse(*bytes, path);
}

xml::DocPtr parse_optional(const Parts& parts, const std::string& path, ExtractContext& context,
                           const std::string& key) {
  const std::string* bytes = find_part(parts, path);
  if (bytes == nullptr) return nullptr;
  try {
    return xml::parse(*bytes, path);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kRuntime) throw;
    context.fail(key, e.what());
    return nullptr;
  }
}

std::string namespaced_attribute(xmlNode* node, std::string_view local_name, std::string_view namespace_suffix) {
  for (xmlAttr* attr = node->properties; attr != nullptr; attr = attr->next) {
    if (xml::chars(attr->name) != local_name || attr->ns == nullptr) continue;
    if (!xml::chars(attr->ns->href).ends_with(namespace_suffix)) continue;
    const xml::CharPtr value(xmlNodeListGetString(node->doc, attr->children, 1));
    return std::string(xml::chars(value.get()));
  }
  return {};
}

std::string relationship_id(xmlNode* node) {
  // Transitional: ".../officeDocument/2006/relationships"; strict: ".../officeDocument/relationships".
  return namespaced_attribute(node, "id", "/relationships");
}

xmlNode* child(xmlNode* node, std::string_view local_name) {
  if (node == nullptr) return nullptr;
  for (xmlNode* c = node->children; c != nullptr; c = c->next) {
    if (c->type == XML_ELEMENT_NODE && xml::name(c) == local_name) return c;
  }
  return nullptr;
}

Relationships relationships(const Parts& parts, const std::string& part, ExtractContext& context,
                            const std::string& key) {
  const std::string folder = folder_of(part);
  const std::string rels_path = folder + "_rels/" + part.substr(folder.size()) + ".rels";
  const xml::DocPtr doc = parse_optional(parts, rels_path, context, key);
  Relationships result;
  if (!doc) return result;
  for (xmlNode* n = xmlDocGetRootElement(doc.get())->children; n != nullptr; n = n->next) {
    if (n->type != XML_ELEMENT_NODE || xml::name(n) != "Relationship") continue;
    Relationship relationship;
    relationship.type = xml::attribute(n, "Type");
    if (xml::attribute(n, "TargetMode") != "External") {
      relationship.target = resolve(folder, xml::attribute(n, "Target"));
    }
    result.emplace(xml::attribute(n, "Id"), std::move(relationship));
  }
  return result;
}

std::string target_of_type(const Relationships& relationships, std::string_view type_name) {
  for (const auto& [id, relationship] : relationships) {
    const std::string_view type = relationship.type;
    if (!relationship.target.empty() && type.size() > type_name.size() && type.ends_with(type_name) &&
        type[type.size() - type_name.size() - 1] == '/') {
      return relationship.target;
    }
  }
  return {};
}

std::string main_part(const Parts& parts, ExtractContext& context, const std::string& key,
                      const std::string& usual_path) {
  const std::string target = target_of_type(relationships(parts, "", context, key), "officeDocument");
  return find_part(parts, target) != nullptr ? target : usual_path;
}

void read_core_properties(const Parts& parts, ExtractContext& context, const std::string& key, ExtractedDocument& doc) {
  std::string path = target_of_type(relationships(parts, "", context, key), "core-properties");
  if (find_part(parts, path) == nullptr) path = "docProps/core.xml";
  const xml::DocPtr core = parse_optional(parts, path, context, key);
  if (!core) return;
  static const std::map<std::string_view, std::string_view> kMetadataNames = {
      {"creator", "author"},
      {"created", "created"},
      {"modified", "modified"},
      {"lastModifiedBy", "modified_by"},
  };
  xml::each_child_text(xmlDocGetRootElement(core.get()), [&](std::string_view name, std::string value) {
    if (name == "title") {
      if (doc.title.empty()) doc.title = std::move(value);
    } else if (const auto it = kMetadataNames.find(name); it != kMetadataNames.end()) {
      doc.metadata.emplace_back(std::string(it->second), std::move(value));
    }
  });
}

void RunText::add(std::string_view s) {
  const std::string_view core = text::trim(s);
  if (core.empty()) {
    if (!s.empty()) space_ = true;
    return;
  }
  if (text::is_space(s.front())) space_ = true;
  if (space_) out_.request_space();
  out_.add_flowing(core);
  space_ = text::is_space(s.back());
}

}  // namespace sieve::search::ooxml
