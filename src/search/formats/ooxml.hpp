#pragma once

// What the readers of ZIP-based documents share: the parts of an Office Open XML package (DOCX, XLSX, PPTX) and
// their relationships and core properties; part paths and the XML in parts, which OpenDocument and EPUB files
// hold too; and the signatures that tell these files from other ZIP files.

#include <libxml/tree.h>

#include <map>
#include <string>
#include <string_view>

#include "search/formats/format.hpp"
#include "search/formats/text_util.hpp"
#include "search/formats/xml_util.hpp"

namespace sieve::search::ooxml {

// The members of a ZIP container by path, as archive::read_all gives them.
using Parts = std::map<std::string, std::string>;

// --- signatures ----------------------------------------------------------------

// Whether `head` starts an Office Open XML package with a part under `folder` ("word/", "xl/", "ppt/"). The
// member names in the local file headers of the first bytes decide: the package's own members
// ("[Content_Types].xml" or "_rels/.rels", or a first member under docProps/ or customXml/, as some writers
// put first and the others last) tell it from a ZIP file that merely has a folder of that name.
bool sniff_package(std::string_view head, std::string_view folder);

// The media type an OpenDocument or EPUB file declares in its first member, "mimetype", stored uncompressed as
// those formats require; "" when the file does not start so.
std::string_view stored_mimetype(std::string_view head);

// Throws sieve::Error (kUnsupported) for an OLE compound file where a ZIP package should be: what Office makes
// of a password-protected document (and the format of .doc, .xls and .ppt before 2007).
void refuse_compound_file(std::string_view bytes);

// --- parts -----------------------------------------------------------------------

// The folder of a part, with its trailing slash: "word/document.xml" → "word/"; "" for a part at the root.
std::string folder_of(std::string_view path);

// A reference (a relationship's target, an href) resolved against the folder of the part that holds it:
// "../media/a.png" from "ppt/slides/" → "ppt/media/a.png"; one starting with "/" is from the package's root. A
// fragment ("#...") is dropped; "" for a URL with a scheme (outside the package).
std::string resolve(std::string_view folder, std::string_view reference);

// "%20" → " ". Invalid escapes are left as they are.
std::string percent_decode(std::string_view s);

// A part by path, also tried with its percent escapes decoded (references are URLs, member names are not);
// nullptr when there is none.
const std::string* find_part(const Parts& parts, const std::string& path);

// Parses a part the file cannot be read without: a missing one means it is not a file of this kind
// (sieve::Error kParse "not a DOCX file: word/document.xml is missing", `what` being "a DOCX file"); malformed
// XML throws kParse naming the part.
xml::DocPtr parse_required(const Parts& parts, const std::string& path, std::string_view what);

// Parses a part the rest can be read without: nullptr when it is missing (quietly) or cannot be read, which is
// reported (context.fail) under `key`.
xml::DocPtr parse_optional(const Parts& parts, const std::string& path, ExtractContext& context,
                           const std::string& key);

// An attribute by local name within a namespace whose URI ends with `namespace_suffix`; "" when absent. For
// the r:id of <p:sldId id="256" r:id="rId2">, which has two attributes named "id".
std::string namespaced_attribute(xmlNode* node, std::string_view local_name, std::string_view namespace_suffix);
// The r:id attribute that names a relationship (transitional or strict namespace).
std::string relationship_id(xmlNode* node);

// The first element child of `node` with this local name; nullptr when none.
xmlNode* child(xmlNode* node, std::string_view local_name);

// --- relationships and properties ----------------------------------------------------

struct Relationship {
  std::string type;    // its URI, e.g. ".../relationships/notesSlide"
  std::string target;  // resolved to a part path; "" for an external target
};
using Relationships = std::map<std::string, Relationship>;  // by Id

// The relationships of a part, from "<folder>_rels/<name>.rels"; empty when it has none. Those of the package
// itself are the part "" ("_rels/.rels").
Relationships relationships(const Parts& parts, const std::string& part, ExtractContext& context,
                            const std::string& key);

// The target of the first relationship whose type ends with "/<type_name>" ("officeDocument",
// "notesSlide"); "" when there is none.
std::string target_of_type(const Relationships& relationships, std::string_view type_name);

// The package's main part ("word/document.xml"): the target of its officeDocument relationship, else
// `usual_path`.
std::string main_part(const Parts& parts, ExtractContext& context, const std::string& key,
                      const std::string& usual_path);

// Sets the document's title and metadata from docProps/core.xml (or wherever the package's core-properties
// relationship points): dc:title; dc:creator → "author", dcterms:created → "created", dcterms:modified →
// "modified", cp:lastModifiedBy → "modified_by". A missing part sets nothing.
void read_core_properties(const Parts& parts, ExtractContext& context, const std::string& key, ExtractedDocument& doc);

// --- text -----------------------------------------------------------------------------

// The text of runs (w:t, a:t) into a TextBuilder. White space at a run's ends is settled when the next text
// comes rather than written at once, so that a table cell's tab or a line's end is not preceded by the space a
// run ended with.
class RunText {
 public:
  explicit RunText(text::TextBuilder& out) : out_(out) {}

  // A run's text; a run of white space in it is one space.
  void add(std::string_view s);
  // A space before the next text (none at the start of a line or after a tab).
  void space() { space_ = true; }
  void tab() {
    space_ = false;
    out_.add_verbatim("\t");
  }
  void line_break() {
    space_ = false;
    out_.add_line_break();
  }
  // 1: a line; 2: a blank line.
  void request_break(int newlines) {
    space_ = false;
    out_.request_break(newlines);
  }

 private:
  text::TextBuilder& out_;
  bool space_ = false;
};

}  // namespace sieve::search::ooxml
